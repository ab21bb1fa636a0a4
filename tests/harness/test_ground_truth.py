"""The results the core harness must reproduce (issue 2), through the real CLI and store.

Scores are checked against a plain minimax written in the tests (tests/support/minimax.py), never
against the oracle the optimal player plays from, so a wrong oracle or scorer fails here.
"""

import json
import sqlite3

import pytest

from tests.support.cli import run_args
from tests.support.minimax import rescore

NIM = {"pile_sizes": "1;3;5;7", "is_misere": True}


def report(cli, store, *extra):
    res = cli("report", "--store", str(store), "--format", "json", *extra)
    assert res.code == 0, res.err
    return json.loads(res.out)["matchups"]


def test_tic_tac_toe_optimal_vs_optimal_is_always_a_draw(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    res = cli(*run_args("tic_tac_toe", "optimal", "optimal", games=20, store=store))
    assert res.code == 0, res.err
    [row] = report(cli, store)
    assert (row["games"], row["draws"], row["wins"], row["losses"], row["failures"]) == (20, 20, 0, 0, 0)
    truth = rescore(store, "tic_tac_toe", "tic_tac_toe")
    assert truth.scored > 0 and truth.agree == truth.moves  # the store's flags are the plain minimax's
    assert truth.optimal == truth.scored  # the optimal player is optimal by an independent judge
    assert row["optimality"]["rate"] == 1.0 and 0 < row["optimality"]["scored"] <= truth.scored


def test_nim_optimal_vs_optimal_second_player_always_wins(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("nim", "optimal", "optimal", games=20, store=store)).code == 0
    [row] = report(cli, store)
    # Sides switch after half: the player moves first (and loses) in games 0-9, second (and wins) in 10-19.
    assert (row["wins"], row["losses"], row["draws"]) == (10, 10, 0)


def test_random_never_beats_optimal_at_tic_tac_toe(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("tic_tac_toe", "random", "optimal", games=100, store=store)).code == 0
    [row] = report(cli, store)
    assert row["games"] == 100 and row["wins"] == 0
    truth = rescore(store, "tic_tac_toe", "tic_tac_toe", player="random")
    assert truth.agree == truth.moves and truth.optimal < truth.scored  # random does blunder
    assert row["optimality"]["scored"] == truth.scored
    assert row["optimality"]["rate"] == pytest.approx(truth.optimal / truth.scored, abs=1e-3)


def test_mcts_on_nim_against_optimal_completes_and_is_scored(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("nim", "mcts:sims=1000", "optimal", games=6, store=store)).code == 0
    [row] = report(cli, store)
    assert row["games"] == 6
    opt = row["optimality"]
    truth = rescore(store, "nim", "nim", NIM, player="mcts:sims=1000")
    assert truth.scored > 0 and truth.agree == truth.moves
    assert opt["scored"] == truth.scored and opt["rate"] == pytest.approx(
        truth.optimal / truth.scored, abs=1e-3
    )
    assert opt["low"] <= opt["rate"] <= opt["high"]
    assert opt["cluster_low"] <= opt["rate"] <= opt["cluster_high"]


@pytest.mark.slow
def test_connect_four_is_scored_exactly(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("connect_four", "mcts:sims=200", "optimal", games=4, store=store)).code == 0
    assert cli(*run_args("connect_four", "optimal", "mcts:sims=200", games=2, store=store)).code == 0
    rows = {r["player"]: r for r in report(cli, store)}
    mcts, optimal = rows["mcts:sims=200"], rows["optimal"]
    assert mcts["optimality"]["scored"] > 0 and mcts["optimality"]["rate"] < 1.0
    assert optimal["optimality"]["rate"] == 1.0
    # The stricter judge by exact score is reported, and a move best by score is best by value too.
    assert mcts["optimality_score"]["scored"] > 0
    with sqlite3.connect(store) as conn:
        both = conn.execute(
            "SELECT optimal, optimal_score FROM moves WHERE optimal_score IS NOT NULL"
        ).fetchall()
    assert both and all(by_value == 1 for by_value, by_score in both if by_score == 1)
    assert any(by_value == 1 and by_score == 0 for by_value, by_score in both)  # and it is stricter
    assert mcts["losses"] >= 3  # the first-player win is forced against a perfect opponent
