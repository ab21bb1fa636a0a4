"""The human player (issue 30 point 7): says the result once, reports how many of its moves were
optimal by the exact oracle, and plays a forced move without asking."""

from __future__ import annotations

import re

import pytest

from tests.support.cli import plylab_subprocess, run_args

MOVES = "B2\nA1\nC3\nA3\nC1\nB1\nB3\nC2\nA2\n"  # typed ahead; the game (seed 3) is won at the fifth ply


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_the_result_is_said_once_with_the_count_of_optimal_moves(tmp_path) -> None:
    args = run_args("tic_tac_toe", "human", "random", games=1, store=tmp_path / "s.sqlite")
    res = plylab_subprocess(*args, "--seed", "3", input=MOVES)
    assert res.returncode == 0, res.stderr
    assert "X (you) to move (ply 0)" in res.stdout  # plies from 0, as the store and replays count them
    end = res.stdout[res.stdout.index("Final position:") :]
    assert end.count("Game over.") == 1 and "X wins" not in end, end  # not "X wins." and then "You win."
    assert "Game over. You win." in end
    found = re.search(r"Optimal moves: (\d+) of (\d+) \(by the exact oracle; 1 move where", end)
    assert found is not None and int(found.group(1)) <= int(found.group(2)) == 2, end


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_a_forced_move_is_played_without_asking(tmp_path) -> None:
    # misère Nim {1,3}: the first player empties pile 2, leaving the second one move (and the loss)
    args = run_args("nim:pile_sizes=1;3", "optimal", "human", games=1, store=tmp_path / "s.sqlite")
    res = plylab_subprocess(*args, input="")  # nothing typed: a prompt would read EOF and forfeit
    assert res.returncode == 0, res.stderr
    assert "Your only move: pile 1, take 1 (played for you)" in res.stdout, res.stdout
    assert "Your move:" not in res.stdout and "forfeit" not in res.stdout
    assert "Game over. You lose." in res.stdout
