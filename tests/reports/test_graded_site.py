"""The site of an equilibrium-graded store read as HTML (no browser): a Kuhn poker matchup page
plots the loss by move number and draws the decisions that cost the most, the run page's game list
counts the moves that lost, and the index gives the equilibrium its section and no exact-only
paper figure."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from plylab.cli import main
from plylab.reports.gamelist import seat_choices
from plylab.reports.truth import ground_truth


@pytest.mark.slow
def test_a_kuhn_site_shows_the_graded_scale(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    play = ["run", "--game", "kuhn_poker", "--player", "random", "--opponent", "equilibrium", "--games", "10"]
    assert main([*play, "--store", str(store), "--run", "kuhn", "-q"]) == 0
    assert main(["report", "--store", str(store), "--html", str(tmp_path / "site")]) == 0
    site = tmp_path / "site"
    (page,) = (site / "matchups").glob("*.html")
    matchup = page.read_text()
    assert 'class="chart loss"' in matchup and "No scored moves" not in matchup
    assert matchup.count('<figure class="card position">') > 0 and "Your card:" in matchup
    with sqlite3.connect(store) as conn:
        lost = conn.execute(
            "SELECT COUNT(*) FROM moves m JOIN games g ON g.id = m.game_id "
            "WHERE m.seat = g.player_seat AND m.loss > json_extract(m.grade, '$.tolerance')"
        ).fetchone()[0]
    assert lost > 0
    run = (site / "runs" / "run-1.html").read_text()
    counts = [int(k) for k in re.findall(r'<td data-sort="[^"]+" class="num">(\d+)/\d+</td>', run)]
    assert len(counts) == 10 and sum(counts) == lost  # the player's non-optimal moves, game by game
    index = (site / "index.html").read_text()
    assert '<section id="equilibrium">' in index and '<section id="exact">' not in index
    assert "Optimality rate by formulation" not in index and "mean loss [95%]" in index


def test_the_ground_truth_and_the_seat_filter_of_a_game() -> None:
    assert [ground_truth(g) for g in ("tic_tac_toe", "kuhn_poker", "chess", "go")] == [
        "exact",
        "equilibrium",
        "engine",
        None,
    ]
    assert seat_choices(["chess"]) == [("2", "White (moves first)"), ("1", "Black")]
    assert seat_choices(["tic_tac_toe"]) == [("1", "1 (moves first)"), ("2", "2")]
