"""`inspect view` opens plylab's exported runs: the real viewer, served by inspect's own command,
in a real headless Chromium, lists every exported log and shows a matchup's games as samples."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plylab.cli import main
from tests.support.browser import ARGS, CHROMIUM
from tests.support.inspect_view import inspect_view, samples_shown

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no system Chromium at {CHROMIUM}"),
]


@pytest.fixture(scope="module")
def viewer(report_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    logs = tmp_path_factory.mktemp("inspect-view") / "logs"
    assert main(["export", str(logs), "--format", "inspect", "--store", str(report_store)]) == 0
    with inspect_view(logs) as url:
        yield url, logs


def _samples_shown(sync_api: Any, page: Any) -> Any:
    return samples_shown(sync_api, page, 2, "game-")


def test_inspect_view_lists_the_logs_and_shows_a_matchups_games(viewer: tuple[str, Path]) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    url, logs = viewer
    expected = len(list(logs.rglob("*.eval")))
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        page.get_by_text(f"{expected} items").wait_for(timeout=30_000)
        # the Nim matchup of run nim-mcts: its page lists its two games as samples, scored. The list
        # is drawn before the viewer has finished loading; a click then can be lost (seen under load)
        page.wait_for_load_state("networkidle")
        page.get_by_text("plylab/nim-mcts").first.click()
        body = _samples_shown(sync_api, page)
        body.to_contain_text(re.compile("optimality", re.IGNORECASE), timeout=60_000)
        body.to_contain_text(re.compile("outcome", re.IGNORECASE), timeout=60_000)
        browser.close()


def test_a_samples_transcript_shows_each_moves_call(
    viewer: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The llm run's sample: its Transcript tab lists the moves' model calls (not "events were
    removed"), and a call shows the prompt of its own move."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    url, _ = viewer
    shots = Path(os.environ.get("PLYLAB_SCREENSHOTS") or tmp_path_factory.mktemp("inspect-shots"))
    shots.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        page.get_by_text("plylab/ttt-llm/").first.click(timeout=30_000)
        _samples_shown(sync_api, page)
        page.get_by_text("game-", exact=False).first.click(timeout=60_000)
        page.get_by_text("Transcript").first.click(timeout=30_000)
        page.wait_for_timeout(2000)
        page.screenshot(path=str(shots / "inspect_transcript.png"), full_page=True)
        body = page.inner_text("body")
        assert "events were removed" not in body
        # a move's own call: the model named, the prompt of that move alone, its reply; the
        # opponent's moves between the calls as info events
        assert "model call: openai-api/fake/m" in body.lower()
        assert "We are playing tic-tac-toe" in body and "it is your move" in body
        assert "info: plylab/opponent" in body.lower() and '"who": "optimal"' in body
        assert (shots / "inspect_transcript.png").stat().st_size > 10_000
        browser.close()
