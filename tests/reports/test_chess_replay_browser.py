"""A chess replay in headless Chromium: the engine's expected-score line, the evaluation bar, `n`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.browser import browser_marks, checked_page, chromium, open_file
from tests.support.engines import needs_stockfish

pytestmark = [*browser_marks, needs_stockfish]


@pytest.fixture(scope="module")
def chess_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from plylab.cli import main

    root = tmp_path_factory.mktemp("chess-site")
    store = root / "s.sqlite"
    assert main(["run", "--game", "chess", "--player", "stockfish:nodes=500", "--opponent", "random",
                 "--games", "1", "--score", "nodes=1000", "--store", str(store), "--quiet"]) == 0  # fmt: skip
    assert main(["report", "--store", str(store), "--html", str(root / "site")]) == 0
    return root / "site"


def test_chess_replay_shows_the_eval_bar_and_line_and_n_goes_to_each_mistake(chess_site: Path) -> None:
    with chromium() as browser, checked_page(browser) as page:
        open_file(page, chess_site / "games" / "1.html")
        svg = page.locator("#value-svg.evalline")
        assert svg.count() == 1 and int(svg.get_attribute("data-mistakes")) > 0
        assert "stockfish 15.1 nodes=1000" in page.locator("#valueline h2").inner_text()
        assert page.locator("#evalbar .num").inner_text() != ""  # the start position's evaluation
        heights = set()
        for _ in range(int(svg.get_attribute("data-mistakes"))):
            before = page.locator("#position").inner_text()
            page.keyboard.press("n")
            assert page.locator("#position").inner_text() != before
            verdict = page.locator("#verdict").inner_text()
            assert any(w in verdict for w in ("inaccuracy", "mistake", "blunder")), verdict
            heights.add(page.locator("#evalbar .black").evaluate("e => e.style.height"))
        assert len(heights) > 1  # the bar follows the position
