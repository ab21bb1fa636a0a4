"""The site of a store whose moves are graded by an equilibrium (Kuhn poker) and by an engine (chess),
beside one exact game, in headless Chromium: matchup pages plot the loss by move number and draw the
worst positions, the run pages' non-optimal filter counts the moves that lost, the index has a
section per ground truth with the chess ACPL, chess names its seats White and Black, and no paper
figure the papers do not define appears on a poker or chess page."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plylab.cli import main
from plylab.oracles.graded import TOLERANCE
from tests.support.browser import browser_marks, checked_page, chromium, open_file
from tests.support.engines import needs_stockfish

pytestmark = [*browser_marks, needs_stockfish]

RUNS = {
    "kuhn": ["--game", "kuhn_poker", "--player", "random", "--opponent", "equilibrium", "--games", "10"],
    "chess": [
        "--game",
        "chess",
        "--player",
        "random",
        "--opponent",
        "stockfish:nodes=500",
        "--games",
        "2",
        "--score",
        "nodes=1000",
    ],  # fmt: skip
    "ttt": ["--game", "tic_tac_toe", "--player", "random", "--opponent", "optimal", "--games", "2"],
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(store, site): Kuhn poker random vs the equilibrium, chess random vs Stockfish, tic-tac-toe."""
    root = tmp_path_factory.mktemp("graded")
    store = root / "s.sqlite"
    for name, args in RUNS.items():
        assert main(["run", *args, "--store", str(store), "--run", name, "--quiet"]) == 0
    assert main(["report", "--store", str(store), "--html", str(root / "site")]) == 0
    return store, root / "site"


@pytest.fixture(scope="module")
def browser(graded) -> Iterator[Any]:  # the store first: playwright's loop blocks asyncio.run
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser) -> Iterator[Any]:
    with checked_page(browser) as pg:
        yield pg


def _shot(page: Any, name: str) -> None:
    """A full-page screenshot to look at, under $PLYLAB_SCREENSHOTS when set."""
    shots = os.environ.get("PLYLAB_SCREENSHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(shots) / f"graded-{name}.png"), full_page=True)


def _run_id(store: Path, name: str) -> int:
    with sqlite3.connect(store) as conn:
        return conn.execute("SELECT id FROM runs WHERE name = ?", (name,)).fetchone()[0]


def _games_that_lost(store: Path, run: str) -> int:
    """Games of the run where the player made a move that lost more than its grade's tolerance."""
    sql = """SELECT COUNT(DISTINCT g.id) FROM games g JOIN moves m ON m.game_id = g.id JOIN runs r ON r.id = g.run_id
             WHERE r.name = ? AND m.seat = g.player_seat AND m.loss >
                   COALESCE(json_extract(m.grade, '$.tolerance'), ?)"""
    with sqlite3.connect(store) as conn:
        return conn.execute(sql, (run, TOLERANCE)).fetchone()[0]


@pytest.mark.parametrize("run", ["kuhn", "chess"])
def test_a_graded_matchup_page_plots_the_loss_and_draws_the_worst_positions(graded, page, run: str) -> None:
    store, site = graded
    open_file(page, site / "runs" / f"run-{_run_id(store, run)}.html")
    href = page.locator("table[data-table=matchups] tbody a", has_text="random").first.get_attribute("href")
    open_file(page, site / "runs" / href)
    _shot(page, f"matchup-{run}")
    main_text = page.locator("main").inner_text()
    assert "No scored moves" not in main_text and "No non-optimal move" not in main_text
    chart = page.locator("#by-move svg.chart.loss")
    assert chart.count() == 1 and int(chart.get_attribute("data-bars")) > 0
    assert "Loss by move number" in page.locator("#by-move h2").inner_text()
    worst = page.locator("#worst figure")
    assert worst.count() > 0
    caption = worst.first.locator("figcaption").inner_text()
    assert "lost in" in caption and "best:" in caption
    if run == "chess":  # a board drawn with the costliest move on it
        assert worst.first.locator("svg.board-svg").count() == 1
    else:  # what the player knew: its card, never the opponent's
        assert "Your card:" in worst.first.locator("pre.board").inner_text()
    summary = page.locator("table[data-table=matchups]")
    assert "mean loss" in summary.locator("thead").inner_text()
    assert "optimality" not in summary.locator("thead").inner_text()


@pytest.mark.parametrize("run", ["kuhn", "chess"])
def test_the_run_pages_non_optimal_filter_counts_moves_that_lost(graded, page, run: str) -> None:
    store, site = graded
    expected = _games_that_lost(store, run)
    assert expected > 0  # random loses against an equilibrium and against Stockfish
    open_file(page, site / "runs" / f"run-{_run_id(store, run)}.html")
    header = page.locator("table[data-table=games] thead").inner_text()
    assert "non-optimal moves" in header and "mean loss" in header
    assert ("ACPL" in header and "accuracy" in header and "blunders" in header) == (run == "chess")
    page.check("input[name=nonoptimal]")
    page.wait_for_function("document.getElementById('filter-status').textContent.includes('match')")
    status = page.locator("#filter-status").inner_text()
    assert status.startswith(f"{expected} of "), status
    assert page.locator("table[data-table=games] tbody tr").count() == expected
    _shot(page, f"run-{run}")
    text = page.locator("main").inner_text()
    # the paper's optimality and recognition are figures of exact games and of model traces only
    assert "Optimality rate by formulation" not in text and "Recognition rate" not in text
    assert "Wins, draws, losses and failures" in text


def test_the_index_has_a_section_per_ground_truth_with_the_chess_acpl(graded, page) -> None:
    _, site = graded
    open_file(page, site / "index.html")
    _shot(page, "index")
    toc = page.locator("nav.toc").inner_text()
    for section, title in (("exact", "Exact values"), ("equilibrium", "Equilibrium"), ("engine", "Engine")):
        assert page.locator(f"section#{section} h2").inner_text() == title and title in toc
    engine = page.locator("section#engine table[data-table=engine-table]")
    head = engine.locator("thead").inner_text()
    assert "ACPL" in head and "accuracy" in head and "blunders" in head
    column = next(
        i for i, h in enumerate(engine.locator("thead th").all_inner_texts()) if h.startswith("ACPL")
    )
    acpl = engine.locator("tbody tr").first.locator("td").nth(column)
    assert float(acpl.inner_text().split()[0]) > 0  # random's moves lose centipawns
    assert page.locator("section#exact table[data-table=exact-table] tbody tr").count() == 1
    # the paper's optimality pivot: the exact game only
    papers = page.locator("section#paper").inner_text()
    assert "Optimality rate by formulation, 95% Wilson interval — tic_tac_toe" in papers
    assert (
        "— kuhn_poker" in papers
        and "Optimality rate by formulation, 95% Wilson interval — chess" not in papers
    )


def test_a_chess_replay_names_white_and_black_and_values_the_played_move(graded, page) -> None:
    store, site = graded
    with sqlite3.connect(store) as conn:
        game_id, ply = conn.execute(
            """SELECT g.id, m.ply FROM games g JOIN runs r ON r.id = g.run_id JOIN moves m ON m.game_id = g.id
               WHERE r.name = 'chess' AND json_extract(m.grade, '$.detail.best.action') != m.action
               ORDER BY g.id, m.ply LIMIT 1"""
        ).fetchone()
    open_file(page, site / "games" / f"{game_id}.html", f"#ply={ply}")
    _shot(page, "chess-replay")
    assert page.locator("#strip li").first.inner_text().startswith("White")  # White opens
    assert "Player 1" not in page.locator("main").inner_text()
    legend = page.locator("p.legend").inner_text()
    assert "optimal" not in legend and "inaccuracy, mistake or blunder" in legend
    page.wait_for_function(f"document.getElementById('position').textContent.startsWith('Ply {ply} ')")
    chosen = page.locator("#moves tbody tr.chosen td").nth(1).inner_text()
    assert chosen.startswith("played (") and "loss" in chosen
