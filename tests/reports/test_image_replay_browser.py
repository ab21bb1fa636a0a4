"""A view=image replay in a real headless Chromium: each of the model's plies shows the image it was
shown (the drawn board without marks), a text opponent's plies none."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from plylab.cli import main
from tests.support.browser import browser_marks, chromium, open_file
from tests.support.fake_openai_server import FakeOpenAIServer

pytestmark = browser_marks


@pytest.fixture(scope="module")
def image_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Built before the browser starts: the run and Playwright's sync API each want the event loop."""
    store = tmp_path_factory.mktemp("image") / "s.sqlite"
    old = os.environ.get("FAKE_API_KEY")
    os.environ["FAKE_API_KEY"] = "sk-fake"
    try:
        with FakeOpenAIServer() as srv:
            llm = f"llm:model=openai-api/fake/m,base_url={srv.url},view=image"
            args = ["run", "--game", "tic_tac_toe", "--player", llm, "--opponent", "random", "--games", "1"]
            assert main([*args, "--store", str(store), "--quiet"]) == 0
    finally:
        if old is None:
            os.environ.pop("FAKE_API_KEY", None)
        else:
            os.environ["FAKE_API_KEY"] = old
    out = tmp_path_factory.mktemp("image-site")
    assert main(["report", "--store", str(store), "--html", str(out)]) == 0
    return store, out


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as b:
        yield b


def test_the_replay_shows_the_image_the_model_saw(image_site: tuple[Path, Path], page) -> None:
    store, site = image_site
    conn = sqlite3.connect(store)
    gid, model_seat = conn.execute("SELECT id, player_seat FROM games").fetchone()
    seats = [s for (s,) in conn.execute("SELECT seat FROM moves WHERE game_id = ? ORDER BY ply", (gid,))]
    open_file(page, site / "games" / f"{gid}.html")
    for seat in seats:
        shown = page.locator("#trace details", has_text="Image shown to the model")
        if seat == model_seat:
            assert shown.count() == 1
            assert shown.locator("svg .coord").count() == 6  # A B C and 1 2 3, as the model saw them
            assert shown.locator("svg .legal").count() == 0  # no move values: only what the model was shown
        else:
            assert shown.count() == 0
        page.keyboard.press("ArrowRight")
