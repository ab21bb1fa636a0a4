"""`inspect view` on the log of `inspect eval plylab/game`: the real viewer in headless Chromium
shows the samples' ground-truth scores and the metrics with their intervals."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.browser import ARGS, CHROMIUM, browser_marks
from tests.support.inspect_view import inspect_view, samples_shown
from tests.tasks.test_inspect_game import eval_in_process

pytestmark = browser_marks


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logs = tmp_path_factory.mktemp("plylab-game-view")
    log = eval_in_process(
        logs, "scripted-nomove/m", game="tic_tac_toe", opponent="optimal", games=2, player="on_failure=random"
    )
    assert log.status == "success", log.error
    with inspect_view(logs) as url:
        yield url


def test_inspect_view_shows_the_ground_truth_scores(viewer: str, tmp_path: Path) -> None:
    shots = Path(os.environ.get("PLYLAB_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(viewer)
        sync_api.expect(page.locator("body")).to_contain_text("plylab/game", timeout=30_000)
        page.screenshot(path=str(shots / "plylab_game_list.png"), full_page=True)
        page.get_by_text("plylab/game").first.click(timeout=30_000)
        body = samples_shown(sync_api, page, 2, "tic_tac_toe")
        for name in ("optimal", "loss", "outcome", "failure"):
            body.to_contain_text(re.compile(name, re.IGNORECASE), timeout=60_000)
        body.to_contain_text(re.compile("wilson", re.IGNORECASE), timeout=60_000)
        page.screenshot(path=str(shots / "plylab_game_view.png"), full_page=True)
        browser.close()
