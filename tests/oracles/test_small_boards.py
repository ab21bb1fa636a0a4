"""Small boards of every game the generic table serves are scored (issue 42, point 4): each one's
small instance played against `optimal` with every move graded; where a game is scored said by
`plylab games` from the same rule (`fits`); breakthrough's table agrees with OpenSpiel's alpha-beta."""

from __future__ import annotations

import json
import random
import sqlite3

import pyspiel
import pytest
from open_spiel.python.algorithms import minimax

from plylab.games import get_game
from plylab.oracles.generic import BOUNDS, SIZES, SMALL, exact_at, fits, largest_fitting
from tests.support.cli import run_args


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_every_generic_game_at_its_small_parameters_is_graded_against_optimal(cli, tmp_path, name):
    spec = SMALL[name]  # every game of the table's list names a small instance
    assert get_game(spec).ground_truth is not None, spec
    store = tmp_path / "s.sqlite"
    r = cli(*run_args(spec, "random", "optimal", games=2, store=store))
    assert r.code == 0, r.err
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT player, grade FROM moves").fetchall()
    assert rows and {p for p, _ in rows} >= {"random", "optimal"}
    assert all(grade is not None for _, grade in rows), spec  # every move graded, both seats
    optimal = [json.loads(g) for p, g in rows if p == "optimal"]
    assert all(g["exact"] for g in optimal)


def test_breakthrough_4x3_is_scored_again() -> None:
    """The regression: the edge bound counted the engine's 144 actions a position, not the at most
    18 legal moves, so 3^12 positions x 144 went over the limit and the board had no table."""
    game = get_game("breakthrough:rows=4,columns=3")
    assert game.ground_truth is not None and game.ground_truth.kind == "exact"
    assert fits(game.engine)


@pytest.mark.slow
def test_breakthrough_table_agrees_with_openspiel_alpha_beta() -> None:
    game = get_game("breakthrough:rows=4,columns=3")
    table, rng = game.oracle(), random.Random(3)
    for _ in range(4):
        state = game.new_state()
        for _ply in range(rng.randrange(3, 8)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        mover = state.current_player()
        for action, value in table.move_values(state).values.items():
            child = state.child(action)
            if child.is_terminal():
                expected = child.returns()[mover]
            else:
                expected, _ = minimax.alpha_beta_search(game.engine, state=child, maximizing_player_id=mover)
            assert value == round(expected), (str(state), action)


@pytest.mark.parametrize("name", sorted(SIZES))
def test_where_a_game_is_exact_is_derived_from_the_rule(name) -> None:
    """Every instance up to the stated product fits; one just above it does not; the example is scored."""
    fixed = dict(get_game(name).openspiel_params)
    top = largest_fitting(name, tuple(sorted(fixed.items())))
    assert top is not None and f"≤ {top}" in str(exact_at(name, fixed))
    keys = SIZES[name]
    above = [
        sizes
        for sizes in _shapes(top + 1, len(keys))
        if _valid(name, fixed, keys, sizes) and not fits(_load(name, fixed, keys, sizes))
    ]
    assert above, f"{name}: nothing at {top + 1} is refused, so the bound said is not the largest"
    assert get_game(SMALL[name]).ground_truth is not None


@pytest.mark.slow
def test_plylab_games_says_where_the_table_scores_and_why_go_has_none(cli) -> None:
    out = cli("games").out
    line = next(ln for ln in out.splitlines() if ln.startswith("breakthrough "))
    assert "exact at rows×columns ≤ 13" in line and "breakthrough:rows=4,columns=3" in line
    go = next(ln for ln in out.splitlines() if ln.startswith("go "))
    assert "no ground truth: no engine strong enough to grade is available" in go
    rows = {r["name"]: r for r in json.loads(cli("games", "--format", "json").out)["games"]}
    assert rows["hex"]["truth_note"].startswith("exact at board_size ≤ 3")
    assert "truth_note" not in rows["tic_tac_toe"]  # it has ground truth: nothing to say


def _shapes(product: int, parts: int) -> list[tuple[int, ...]]:
    if parts == 1:
        return [(product,)]
    return [
        (d, *r) for d in range(1, product + 1) if product % d == 0 for r in _shapes(product // d, parts - 1)
    ]


def _load(name: str, fixed: dict, keys: tuple[str, ...], sizes: tuple[int, ...]) -> pyspiel.Game:
    return pyspiel.load_game(name, {**fixed, **dict(zip(keys, sizes, strict=True))})


def _valid(name: str, fixed: dict, keys: tuple[str, ...], sizes: tuple[int, ...]) -> bool:
    try:
        _load(name, fixed, keys, sizes).new_initial_state()
    except pyspiel.SpielError:
        return False
    return True
