"""The one graded scale keeps an exact oracle's optimality, everywhere in tic-tac-toe and on a store."""

from __future__ import annotations

import sqlite3

import pytest

from plylab.games import get_game
from plylab.harness.store import connect
from plylab.oracles.graded import Grade, expected_score, grade_of


def _states(state, seen):  # every reachable non-terminal state once
    key = str(state)
    if key in seen or state.is_terminal():
        return
    seen[key] = state.clone()
    for a in state.legal_actions():
        _states(state.child(a), seen)


@pytest.mark.slow
def test_exact_grade_agrees_with_optimality_at_every_tic_tac_toe_state() -> None:
    game = get_game("tic_tac_toe")
    oracle = game.oracle()
    seen: dict[str, object] = {}
    _states(game.new_state(), seen)
    assert len(seen) == 4520  # the non-terminal states of tic-tac-toe
    for state in seen.values():
        mv = oracle.move_values(state)
        for a in state.legal_actions():
            g = grade_of(oracle, state, a, mv)
            assert g.is_best(a) == mv.optimal(a)
            assert g.informative == mv.informative
            assert g.loss(a) == expected_score(mv.value) - expected_score(mv.values[a])
            assert set(g.expected.values()) <= {0.0, 0.5, 1.0}


def test_grade_round_trips_through_json() -> None:
    g = Grade({3: 0.25, 7: 0.75}, unit="payoff", span=4.0, source="cfr+", exact=False, detail={"p": [0.5]})
    back = Grade.from_json(g.to_json())
    assert back == g
    assert back.loss(3) == 0.5 and back.relative_loss(3) == 0.125 and back.best_actions == [7]


def test_an_older_store_gains_the_graded_columns(tmp_path) -> None:
    path = tmp_path / "old.sqlite"
    conn = connect(path)
    conn.execute("ALTER TABLE moves DROP COLUMN loss")
    conn.execute("ALTER TABLE moves DROP COLUMN grade")
    conn.execute("PRAGMA user_version=0")  # a store from before versions
    conn.close()
    names = {r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(moves)")}
    assert "grade" not in names and "loss" not in names
    connect(path).close()
    names = {r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(moves)")}
    assert {"grade", "loss"} <= names


def test_stored_games_keep_their_optimality_on_the_graded_scale(cli, tmp_path) -> None:
    """Played through the session and the store: a move's stored loss is zero exactly where the exact
    oracle calls it optimal, and its grade is the exact one (not an engine's)."""
    store = tmp_path / "s.sqlite"
    for game in ("tic_tac_toe", "nim"):
        done = cli("run", "--game", game, "--player", "random", "--opponent", "optimal", "--games", "6",
                   "--store", str(store), "--quiet")  # fmt: skip
        assert done.code == 0, done.err
    rows = sqlite3.connect(store).execute("SELECT optimal, informative, loss, grade FROM moves").fetchall()
    assert len(rows) > 30
    for optimal, informative, loss, text in rows:
        g = Grade.from_json(text)
        assert g.exact and (loss == 0) == bool(optimal) and g.informative == bool(informative)
        assert set(g.expected.values()) <= {0.0, 0.5, 1.0}
