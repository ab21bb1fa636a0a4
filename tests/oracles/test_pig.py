"""Exact Pig (issue 42, point 2): the value-iteration table against Neller and Presser's published
facts, against OpenSpiel's own game (its transitions, state by state), and played by `plylab run`."""

from __future__ import annotations

import json
import random
import sqlite3

import numpy as np
import pytest

from plylab.games import get_game
from plylab.oracles.pig import HOLD, ROLL, PigOracle, PigRules, backup, read_state, rolls, won
from tests.support.cli import run_args


@pytest.fixture(scope="module")
def pig100() -> PigOracle:
    return PigOracle.build(PigRules(100))


def evaluate(target: int, rolls_a: np.ndarray, rolls_b: np.ndarray, faces: int = 6) -> float:
    """The first player's exact win probability when A (first) and B play fixed policies
    (`rolls_X[i, j, k]`: roll at that decision), by the same equations with no max."""
    done = won(target)
    wa, wb = np.where(done, 1.0, 0.0), np.where(done, 1.0, 0.0)
    for _ in range(5000):
        new = []
        for mine, other, policy in ((wa, wb, rolls_a), (wb, wa, rolls_b)):
            # backup reads the opponent's values at their turns: the other cube's k = 0 slice
            joint = mine.copy()
            joint[:, :, 0] = other[:, :, 0]
            roll, hold = backup(joint, PigRules(target, faces))
            new.append(np.where(done, 1.0, np.where(policy, roll, hold)))
        delta = max(float(np.max(np.abs(new[0] - wa))), float(np.max(np.abs(new[1] - wb))))
        wa, wb = new
        if delta < 1e-10:
            return float(wa[0, 0, 0])
    raise AssertionError("policy evaluation did not converge")


def hold_at(n: int, g: int = 100) -> np.ndarray:
    """'Hold at n or goal': roll while the turn total is below n and the score plus it below the goal."""
    i, j, k = np.ogrid[:g, :g, :g]
    return np.broadcast_to((k < n) & (i + k < g), (g, g, g))


@pytest.mark.slow
def test_the_first_player_wins_53_06_percent_under_optimal_play(pig100) -> None:
    """Neller & Presser 2004: with optimal play at 100 the first player wins with probability about 0.5306."""
    assert round(pig100.win(0, 0, 0), 4) == 0.5306
    assert pig100.sweeps > 1  # the equations are cyclic: solved by iteration, not one backward pass


@pytest.mark.slow
def test_published_decisions_of_the_optimal_policy(pig100) -> None:
    """Two situations the optimal policy is known by (Neller & Presser's analysis, as retold): at
    41 against 49 roll until the turn total reaches 22, hold from 22 to 26, but roll once more at 27;
    at 78 against 99 with 20 in the turn, roll (hold-at-20 would hold)."""

    def rolls(i: int, j: int, k: int) -> bool:
        hold = 1.0 - pig100.win(j, i + k, 0)
        roll = ((1.0 - pig100.win(j, i, 0)) + sum(pig100.win(i, j, k + r) for r in range(2, 7))) / 6
        return roll > hold

    assert [rolls(41, 49, k) for k in range(15, 29)] == [True] * 7 + [False] * 5 + [True, False]
    assert rolls(78, 99, 20)


@pytest.mark.slow
def test_hold_at_20_against_the_optimal_policy(pig100) -> None:
    """Neller's published first-player win of 'hold at 20 or goal' against itself is about .5347;
    the optimal policy beats it from either seat (each seat's exact win probability printed)."""
    optimal = rolls(pig100.table)
    twenty = hold_at(20)
    assert round(evaluate(100, twenty, twenty), 4) == 0.5347
    first = evaluate(100, optimal, twenty)
    second = 1.0 - evaluate(100, twenty, optimal)
    print(f"optimal vs hold at 20: first {first:.4f}, second {second:.4f}, mean {(first + second) / 2:.4f}")
    assert first > 0.5347 and second > 0.5  # better than hold at 20 from either seat


@pytest.mark.parametrize("spec", ["pig:winscore=20", "pig:winscore=15,diceoutcomes=4"])
def test_the_table_is_a_fixed_point_of_openspiels_own_game(spec) -> None:
    """Each move's value equals OpenSpiel's transitions averaged over its chance outcomes, valued by
    the table at the next decision: the state mapping (scores, turn total, mover) and the equations
    are OpenSpiel's game, not a re-implementation of it."""
    game = get_game(spec)
    oracle = game.oracle()
    assert isinstance(oracle, PigOracle)
    rng = random.Random(5)

    def value(state, mover: int) -> float:
        if state.is_terminal():  # a win 1, a draw at the horizon 1/2, a loss 0
            return (state.returns()[mover] + 1.0) / 2.0
        if state.is_chance_node():
            return sum(p * value(state.child(a), mover) for a, p in state.chance_outcomes())
        best = max(oracle.action_values(state).values())
        return best if state.current_player() == mover else 1.0 - best

    checked = 0
    for _ in range(30):
        state = game.new_state()
        while not state.is_terminal() and checked < 400:
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            mover = state.current_player()
            for action, v in oracle.action_values(state).items():
                assert v == pytest.approx(value(state.child(action), mover), abs=1e-9), (str(state), action)
            checked += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked >= 100


def test_read_state_names_the_mover_first() -> None:
    game = get_game("pig:winscore=20")
    state = game.new_state()
    state.apply_action(HOLD)  # player 0 holds at 0: player 1 to move
    state.apply_action(ROLL)
    state.apply_action(3)  # a 4
    assert state.current_player() == 1 and read_state(state) == type(read_state(state))(0, 0, 4, 1000 - 2)


def test_where_pig_has_ground_truth() -> None:
    assert get_game("pig").ground_truth is not None and get_game("pig:winscore=30").ground_truth is not None
    assert get_game("pig:winscore=101").ground_truth is None  # over the table's target
    assert get_game("pig:piglet=true").ground_truth is not None  # a coin: its own table (issue 46)


@pytest.mark.slow
def test_plylab_run_reports_optimality_against_the_exact_policy(cli, tmp_path) -> None:
    store = tmp_path / "p.sqlite"
    r = cli(*run_args("pig:winscore=30", "random", "optimal", games=6, store=store))
    assert r.code == 0, r.err
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT player, grade, optimal, informative FROM moves").fetchall()
    assert rows and all(g is not None and o is not None for _, g, o, _ in rows)  # every decision graded
    assert all(o == 1 for p, _, o, _ in rows if p == "optimal")
    assert any(o == 0 for p, _, o, i in rows if p == "random" and i)  # random errs somewhere
    grade = json.loads(rows[0][1])
    assert grade["exact"] and grade["unit"] == "score" and 0.0 <= min(grade["expected"].values()) <= 1.0
    [row] = json.loads(cli("report", "--store", str(store), "--format", "json").out)["matchups"]
    assert row["optimality"] is not None and 0.0 < row["optimality"]["rate"] < 1.0
