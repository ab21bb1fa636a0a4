"""The generated site in a real headless Chromium: index, sortable tables, plots, replays."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from plylab.games import get_game
from tests.support.browser import browser_marks, chromium, open_file

pytestmark = browser_marks


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as b:
        yield b


_open = open_file


def test_index_lists_runs_sorts_tables_and_loads_plots(page, site: Path) -> None:
    _open(page, site / "index.html")
    runs = page.locator("table[data-table=runs-table] tbody td:first-child a").all_inner_texts()
    assert sorted(runs) == ["nim-mcts", "ttt-llm", "ttt-mcts", "ttt-random"]
    images = page.locator("img")
    assert images.count() >= 3
    widths = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
    assert all(w > 0 for w in widths), widths
    # Sorting: click the 'optimality' header of the matchup table, twice.
    table = page.locator("table[data-table=matchups]")
    header = table.locator("thead th", has_text="optimality").first
    column = table.locator("thead th").all_inner_texts().index(header.inner_text())

    def values() -> list[float]:
        cells = table.locator(f"tbody tr td:nth-child({column + 1})")
        return [
            float(v)
            for v in cells.evaluate_all("cells => cells.map(c => c.dataset.sort)")
            if v not in ("None", "")
        ]

    header.click()
    assert values() == sorted(values())
    header.click()
    assert values() == sorted(values(), reverse=True)


def test_replay_steps_with_the_keyboard_and_shows_board_and_values(
    page, site: Path, report_store: Path
) -> None:
    conn = sqlite3.connect(report_store)
    conn.row_factory = sqlite3.Row
    game_id = conn.execute(
        "SELECT g.id FROM games g JOIN runs r ON r.id=g.run_id WHERE r.name='ttt-mcts' AND g.num_moves >= 5 LIMIT 1"
    ).fetchone()[0]
    moves = conn.execute("SELECT * FROM moves WHERE game_id=? ORDER BY ply", (game_id,)).fetchall()
    game = get_game("tic_tac_toe")
    form, oracle = game.formulation("standard"), game.oracle()

    def expect(ply: int) -> None:
        state = game.engine.deserialize_state(moves[ply]["state"])
        # the text board folds under the drawing (ttt's standard surface is not a disguise)
        assert page.locator("#board").text_content() == form.render_state(state)
        assert page.locator("#board-svg svg .piece").count() == ply
        assert page.locator("#board-svg svg .legal").count() == len(state.legal_actions())
        rows = page.locator("#moves tbody tr").evaluate_all(
            "rows => rows.map(r => [r.cells[0].textContent, r.cells[1].textContent, r.classList.contains('chosen')])"
        )
        names = {1: "win", 0: "draw", -1: "loss"}
        values = oracle.move_values(state).values
        assert rows == [
            [form.action_label(state, a), names[values[a]], a == moves[ply]["action"]]
            for a in state.legal_actions()
        ]
        assert page.locator("#position").inner_text().startswith(f"Ply {ply} ({ply + 1} of {len(moves)})")

    _open(page, site / "games" / f"{game_id}.html")
    expect(0)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(2)
    played = f"played {moves[2]['action_label']}"
    if moves[2]["informative"]:
        verdict = f"{played}: {'optimal' if moves[2]['optimal'] else 'not optimal'}"
    else:
        verdict = f"{played}; every legal move has the same value here (not scored)"
    assert page.locator("#verdict").inner_text().endswith(verdict)
    page.keyboard.press("ArrowLeft")
    expect(1)
    page.keyboard.press("End")
    assert "Game over" in page.locator("#board").text_content()
    assert page.locator("#next").is_disabled()
    page.keyboard.press("Home")
    expect(0)
    page.click("#next")
    expect(1)
    # A step has its own address: reopening at #ply=3 lands on move 4.
    _open(page, site / "games" / f"{game_id}.html", "#ply=3")
    page.reload()
    expect(3)


def test_llm_replay_shows_prompt_reasoning_reply_and_tokens(page, site: Path, report_store: Path) -> None:
    with sqlite3.connect(report_store) as conn:
        game_id, seat = conn.execute(
            "SELECT g.id, g.player_seat FROM games g JOIN runs r ON r.id=g.run_id WHERE r.name='ttt-llm' LIMIT 1"
        ).fetchone()
        first = conn.execute(
            "SELECT ply, input_tokens, output_tokens FROM moves WHERE game_id=? AND seat=? "
            "ORDER BY ply LIMIT 1",
            (game_id, seat),
        ).fetchone()
    _open(page, site / "games" / f"{game_id}.html")
    for _ in range(first[0]):
        page.keyboard.press("ArrowRight")
    trace = page.locator("#trace")
    assert trace.locator("summary").all_inner_texts() == ["Prompt", "Reasoning", "Reply"]
    assert "I take" in trace.inner_text()
    usage = page.locator("#usage").inner_text()
    assert f"tokens {first[1]} in · {first[2]} out" in usage


def test_clue_replay_shows_matrix_and_oracle_side_by_side(page, site: Path) -> None:
    clue_page = next((site / "games").glob("clue-*.html"))
    _open(page, clue_page)
    assert page.locator("#position").inner_text() == "The deal"
    # After the deal each seat knows exactly its own hand, in both grids.
    for grid in ("#matrix", "#oracle"):
        assert page.locator(f"{grid} tbody tr:not(.cat)").count() == 21
    own = page.locator("#matrix td.mY").count()
    assert own == page.locator("#oracle td.mY").count() > 0
    page.keyboard.press("ArrowRight")
    assert page.locator("#position").inner_text().startswith("Turn 1 of")
    assert page.locator("#story").inner_text().startswith("P1 (")
    page.select_option("#seat", "2")
    assert page.locator("#matrix-title").inner_text().startswith("P3 (")


def test_game_list_search_reads_the_models_texts_and_filters_combine(
    page, site: Path, report_store: Path
) -> None:
    conn = sqlite3.connect(report_store)
    run_id, games = conn.execute(
        "SELECT r.id, COUNT(*) FROM games g JOIN runs r ON r.id = g.run_id WHERE r.name = 'ttt-llm'"
    ).fetchone()
    _open(page, site / "runs" / f"run-{run_id}.html")
    status = page.locator("#filter-status")
    rows = page.locator("table[data-table=games] tbody tr")
    page.fill("input[name=q]", "THE FIRST MOVE listed")  # the scripted model's trace, any case
    page.wait_for_function("document.getElementById('filter-status').textContent.includes('match')")
    assert status.inner_text().startswith(f"{games} of {games}") and rows.count() == games
    page.fill("input[name=q]", "a phrase no model wrote")
    page.wait_for_function("document.getElementById('filter-status').textContent.startsWith('0 of')")
    assert rows.count() == 0
    page.fill("input[name=q]", "")
    page.select_option("select[name=seat]", "1")
    page.wait_for_function("document.getElementById('filter-status').textContent.includes('match')")
    first = conn.execute(
        "SELECT COUNT(*) FROM games WHERE run_id = ? AND player_seat = 0", (run_id,)
    ).fetchone()[0]
    assert rows.count() == first


def test_clue_replays_show_matrix_and_oracle(page, tmp_path: Path) -> None:
    """Each Clue game gets the matrix-beside-oracle replay; a screenshot is kept for a look."""
    import shutil
    from concurrent.futures import ThreadPoolExecutor

    from plylab.cli import main as plylab

    def main(args: list[str]) -> int:  # off the page's thread, where Playwright runs its event loop
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(plylab, args).result()

    store = tmp_path / "c.sqlite"
    seats = ["-p", "clue-oracle", "-p", "clue-matrix", "-p", "clue-random", "-p", "clue-random"]
    assert main(["clue", "run", *seats, "--games", "2", "--seed", "1", "--store", str(store), "-q"]) == 0
    assert main(["report", "--store", str(store), "--html", str(tmp_path / "site")]) == 0
    pages = sorted((tmp_path / "site" / "games").glob("clue-*.html"))
    assert len(pages) == 2
    for replay in pages:
        _open(page, replay)
        assert page.locator("#position").inner_text() == "The deal"
        for grid in ("#matrix", "#oracle"):
            assert page.locator(f"{grid} tbody tr:not(.cat)").count() == 21
        for _ in range(6):
            page.keyboard.press("ArrowRight")
        assert page.locator("#position").inner_text().startswith("Turn 6 of")
        assert page.locator("#oracle td.mY").count() >= page.locator("#matrix td.mY").count() > 0
        page.screenshot(path=str(tmp_path / f"{replay.stem}.png"), full_page=True)
    shots = list(tmp_path.glob("clue-*.png"))
    assert len(shots) == 2 and all(s.stat().st_size > 10_000 for s in shots)
    keep = os.environ.get("PLYLAB_KEEP_SCREENSHOTS")
    if keep:
        for s in shots:
            shutil.copy(s, keep)
