"""`inspect view` opens plylab's exported runs: the real viewer, served by inspect's own command,
in a real headless Chromium, lists every exported log and shows a matchup's games as samples."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plylab.cli import main
from tests.support.browser import ARGS, CHROMIUM
from tests.support.ports import free_port

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no system Chromium at {CHROMIUM}"),
]


@pytest.fixture(scope="module")
def viewer(report_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    logs = tmp_path_factory.mktemp("inspect-view") / "logs"
    assert main(["export", str(logs), "--format", "inspect", "--store", str(report_store)]) == 0
    inspect = shutil.which("inspect", path=str(Path(sys.executable).parent))
    assert inspect, "inspect_ai's `inspect` command is installed with plylab"
    port = free_port()
    proc = subprocess.Popen(
        [inspect, "view", "--log-dir", str(logs), "--recursive", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(300):  # up to 30 s for the viewer to start
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("inspect view did not start")
        yield url, logs
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _samples_shown(sync_api: Any, page: Any) -> Any:
    """Wait until a log's two samples are listed. The viewer shows its list, then "Loading log…",
    then the samples: wait on the page's text (expect retries), not on an element of the state before."""
    body = sync_api.expect(page.locator("body"))
    body.to_contain_text("2 Samples", timeout=60_000)
    body.to_contain_text("game-", timeout=60_000)
    return body


def test_inspect_view_lists_the_logs_and_shows_a_matchups_games(viewer: tuple[str, Path]) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    url, logs = viewer
    expected = len(list(logs.rglob("*.eval")))
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        page.get_by_text(f"{expected} items").wait_for(timeout=30_000)
        # the Nim matchup of run nim-mcts: its page lists its two games as samples, scored
        page.get_by_text("plylab/nim").first.click()
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
