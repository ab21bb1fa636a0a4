"""A Kuhn poker replay in a real headless Chromium: each ply shows what its mover saw (never the other
card), the whole state only behind its toggle; the run's filters and the matchup page work too."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from plylab.cli import main
from plylab.games import get_game
from tests.support.browser import browser_marks, chromium, open_file

pytestmark = browser_marks


@pytest.fixture(scope="module")
def kuhn_site(tmp_path_factory: pytest.TempPathFactory, chat_server: str) -> tuple[Path, Path]:
    """Built before the browser starts: the run and Playwright's sync API each want the event loop."""
    store = tmp_path_factory.mktemp("kuhn") / "s.sqlite"
    llm = f"llm:model=openai-api/fake/m,base_url={chat_server},output=json"
    for player, run in ((llm, "kuhn-llm"), ("mcts", "kuhn-mcts")):
        args = ["run", "--game", "kuhn_poker", "--player", player, "--opponent", "random", "--games", "4"]
        assert main([*args, "--store", str(store), "--run", run, "--quiet"]) == 0
    out = tmp_path_factory.mktemp("kuhn-site")
    assert main(["report", "--store", str(store), "--html", str(out)]) == 0
    return store, out


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as b:
        yield b


def test_kuhn_replay_shows_the_movers_view_and_reveals_on_request(
    kuhn_site: tuple[Path, Path], page, tmp_path: Path
) -> None:
    store, site = kuhn_site
    conn = sqlite3.connect(store)
    conn.row_factory = sqlite3.Row
    gid = conn.execute(
        "SELECT g.id FROM games g JOIN runs r ON r.id = g.run_id WHERE r.name = 'kuhn-llm' "
        "AND g.num_moves >= 2 ORDER BY g.id LIMIT 1"
    ).fetchone()[0]
    moves = conn.execute("SELECT * FROM moves WHERE game_id = ? ORDER BY ply", (gid,)).fetchall()
    game = get_game("kuhn_poker")
    f = game.formulation("standard")
    open_file(page, site / "games" / f"{gid}.html")
    for ply, m in enumerate(moves):
        state = game.engine.deserialize_state(m["state"])
        board = page.locator("#board").text_content()
        assert board == f.render_state(state)  # what the mover saw
        # the mover's own card, never the other one (the whole state says which is which)
        cards = [int(c) for c in str(state).split()[:2]]
        names = ["Jack", "Queen", "King"]
        assert f"Your card: {names[cards[m['seat']]]}" in board
        assert f"Your card: {names[cards[1 - m['seat']]]}" not in board
        assert page.locator("#whole").is_hidden()
        assert "What Player" in page.locator("#text-title").inner_text()
        if ply == 0:
            page.check("#reveal")  # the whole state, hands revealed
            assert page.locator("#whole").is_visible()
            assert page.locator("#whole").text_content() == f.render_whole(state)
            shot = Path(os.environ.get("PLYLAB_SCREENSHOTS", tmp_path)) / "kuhn_replay.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
            page.uncheck("#reveal")
        page.keyboard.press("ArrowRight")
    assert "Payoffs:" in page.locator("#verdict").inner_text()  # the final step: who won what


def test_kuhn_run_filters_and_matchup_page(kuhn_site: tuple[Path, Path], page) -> None:
    store, site = kuhn_site
    conn = sqlite3.connect(store)
    run_id = conn.execute("SELECT id FROM runs WHERE name = 'kuhn-llm'").fetchone()[0]
    open_file(page, site / "runs" / f"run-{run_id}.html")
    rows = page.locator("table[data-table=games] tbody tr")
    assert rows.count() == 4
    page.select_option("select[name=seat]", "1")
    page.wait_for_function("document.getElementById('filter-status').textContent.includes('match')")
    assert (
        rows.count()
        == conn.execute(
            "SELECT COUNT(*) FROM games WHERE run_id = ? AND player_seat = 0", (run_id,)
        ).fetchone()[0]
    )
    open_file(page, site / "index.html")
    table = page.locator("table[data-table=matchups]")
    assert "payoff/game [95% t]" in table.locator("thead").inner_text()
    href = table.locator("tbody tr", has_text="kuhn-mcts").locator("a").first.get_attribute("href")
    assert href
    open_file(page, site / href)  # the matchup page of a hidden-information game
    assert "kuhn_poker" in page.locator("main").inner_text()
