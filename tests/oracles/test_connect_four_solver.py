"""The Connect Four solver against published truths, reference test sets and its own recursion.

The test-set files in tests/data/connect_four/ hold positions of the six standard classes, scored
by bitbully and by this solver (see bench/bench_connect_four.py --make-sets); `published.txt` holds
positions of Pascal Pons' public Test_L3_R1 set with their published scores.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms import minimax

from plylab.games import get_game
from plylab.oracles import best_actions
from plylab.oracles.connect_four import ConnectFourOracle, DiskCache, Solver, position_key, shared_solver

DATA = Path(__file__).resolve().parents[1] / "data" / "connect_four"
GAME = get_game("connect_four")


def columns(text: str) -> list[int]:
    return [int(c) - 1 for c in text]


def read_set(name: str) -> list[tuple[str, int]]:
    rows = []
    for line in (DATA / f"{name}.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            moves, score = line.split()
            rows.append((moves, int(score)))
    return rows


@pytest.fixture(scope="module")
def oracle() -> ConnectFourOracle:
    return ConnectFourOracle()


def test_empty_board_is_a_first_player_win_only_through_the_centre(oracle: ConnectFourOracle) -> None:
    # Solved by Allen and by Allis in 1988: the centre wins, columns 3 and 5 draw, the rest lose;
    # the scores are the ones exact solvers publish (bitbully's documentation among them).
    mv = oracle.move_values(GAME.new_state())
    assert mv.scores == {0: -2, 1: -1, 2: 0, 3: 1, 4: 0, 5: -1, 6: -2}
    assert mv.values == {0: -1, 1: -1, 2: 0, 3: 1, 4: 0, 5: -1, 6: -1}
    assert best_actions(mv) == best_actions(mv, by="score") == [3]
    assert oracle.solve([]) == 1


def test_full_centre_column_and_early_replies(oracle: ConnectFourOracle) -> None:
    # The first as bitbully documents it; the second as bitbully computes it.
    assert oracle.scores(columns("444444")) == {0: -1, 1: 0, 2: 1, 4: 1, 5: 0, 6: -1}
    assert oracle.scores(columns("4")) == {0: -4, 1: -2, 2: -2, 3: -1, 4: -2, 5: -2, 6: -4}


@pytest.mark.parametrize(("moves", "score"), read_set("published"))
def test_published_positions(moves: str, score: int) -> None:
    assert shared_solver().solve(columns(moves)) == score


# A stride through each class keeps the suite to a second or two; the bench runs them all.
@pytest.mark.parametrize(
    ("name", "stride"),
    [
        ("end_easy", 1),
        ("middle_easy", 1),
        ("middle_medium", 10),
        ("begin_easy", 1),
        ("begin_medium", 10),
        ("begin_hard", 5),
    ],
)
def test_standard_test_set_classes(name: str, stride: int) -> None:
    solver = shared_solver()
    wrong = [(m, s, solver.solve(columns(m))) for m, s in read_set(name)[::stride]]
    assert [w for w in wrong if w[1] != w[2]] == []


@pytest.mark.parametrize(
    ("moves", "score"),
    [
        ("161463467163", -6),
        ("147426524526", -5),
        ("244234745312", -10),
        ("612237356555", 9),
        ("266434754352", 13),
    ],
)
def test_opening_book_agrees_with_search_at_twelve_stones(moves: str, score: int) -> None:
    assert Solver().solve(columns(moves)) == score  # no book: a full search
    assert shared_solver().solve(columns(moves)) == score  # the book's entry, or its mirror's


def test_score_ranks_winning_moves_by_speed(oracle: ConnectFourOracle) -> None:
    mv = oracle.move_values(GAME.replay(columns("111755554222122724716157435")))
    assert mv.scores == {2: 7, 3: 6, 5: 8, 6: 4}
    assert best_actions(mv) == [2, 3, 5, 6]  # every move wins
    assert best_actions(mv, by="score") == [5]  # column 6 wins soonest


def test_bad_positions_are_refused(oracle: ConnectFourOracle) -> None:
    with pytest.raises(ValueError, match="full"):
        oracle.solve(columns("4444444"))
    with pytest.raises(ValueError, match="not in 0..6"):
        oracle.solve([7])
    with pytest.raises(ValueError, match="already won"):
        oracle.solve(columns("12121212"))
    with pytest.raises(ValueError, match="terminal"):
        oracle.solve(columns("1212121"))
    with pytest.raises(ValueError, match="terminal"):
        oracle.move_values(GAME.replay(columns("1212121")))


def test_transpositions_share_a_key() -> None:
    assert position_key(columns("4453")) == position_key(columns("5344"))
    assert position_key(columns("4453")) != position_key(columns("4435"))  # the stones change hands


def test_disk_cache_is_read_before_solving(tmp_path: Path) -> None:
    path = tmp_path / "c4.sqlite"
    first = ConnectFourOracle(disk_cache=path)
    assert first.scores(columns("4453")) == {0: -5, 1: -5, 2: -2, 3: -3, 4: -4, 5: -2, 6: -2}
    # A planted entry (written through the file's own interface) proves that a second oracle answers
    # from the file, not from a search.
    DiskCache(path).put(position_key(columns("44")), (9, None, None, None, None, None, None))
    assert ConnectFourOracle(disk_cache=path).scores(columns("44")) == {0: 9}
    assert ConnectFourOracle(disk_cache=path).scores(columns("5344"))[2] == -2  # a transposition


def random_position(picks: list[int]):
    """Play picks[i] modulo the moves that do not end the game; stop when none is left."""
    state = GAME.new_state()
    for pick in picks:
        quiet = [a for a in state.legal_actions() if not state.child(a).is_terminal()]
        if not quiet:
            break
        state.apply_action(quiet[pick % len(quiet)])
    return state


positions = st.lists(st.integers(0, 6), min_size=20, max_size=42).map(random_position)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions)
def test_a_position_is_worth_its_best_child(state) -> None:
    oracle = ConnectFourOracle()
    mv = oracle.move_values(state)
    assert set(mv.values) == set(state.legal_actions())
    direct = shared_solver().solve(state.history())  # one search of the position itself
    assert mv.score == direct
    assert mv.value == (direct > 0) - (direct < 0)
    for action, score in mv.scores.items():
        child = state.child(action)
        if child.is_terminal():  # Pons' convention: a win now scores (43 - stones before it) // 2
            assert score == (0 if child.returns()[0] == 0 else (43 - len(state.history())) // 2)
        else:
            assert score == -shared_solver().solve(child.history())


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 6), min_size=33, max_size=42).map(random_position))
def test_values_match_openspiel_alpha_beta_near_the_end(state) -> None:
    mover = state.current_player()
    expected = {}
    for action in state.legal_actions():
        child = state.child(action)
        if child.is_terminal():
            expected[action] = round(child.returns()[mover])
        else:
            expected[action] = round(
                minimax.alpha_beta_search(GAME.engine, child, maximizing_player_id=mover)[0]
            )
    assert ConnectFourOracle().move_values(state).values == expected


@pytest.mark.parametrize(
    ("blocked", "message"),
    [
        ("plylab.oracles._connect_four", "solver (plylab.oracles._connect_four) is not built"),
        ("bitbully_databases", "pip install bitbully-databases"),
    ],
)
def test_a_missing_part_is_a_clear_import_error(blocked: str, message: str) -> None:
    script = (
        f"import sys; sys.modules[{blocked!r}] = None\n"
        "try:\n"
        "    from plylab.oracles.connect_four import ConnectFourOracle; ConnectFourOracle()\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert message in out.stdout, out.stderr
