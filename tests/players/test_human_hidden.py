"""The human player of a hidden-information game sees only its own information: its card, the open
bets, the opponent's moves where they are public, never the other card, not even at the end."""

from __future__ import annotations

import sqlite3

import pytest

from plylab.games import get_game
from tests.support.cli import plylab_subprocess, run_args

NAMES = ["Jack", "Queen", "King"]


@pytest.mark.slow
def test_a_human_at_kuhn_poker_sees_its_card_and_not_the_other(tmp_path) -> None:
    store = tmp_path / "s.sqlite"
    res = plylab_subprocess(
        *run_args("kuhn_poker", "human", "random", games=1, store=store), input="Bet\n" * 4
    )
    assert res.returncode == 0, res.stderr
    with sqlite3.connect(store) as conn:
        (state,) = conn.execute("SELECT state FROM moves WHERE ply = 0").fetchone()
    cards = [int(c) for c in str(get_game("kuhn_poker").engine.deserialize_state(state)).split()[:2]]
    out = res.stdout
    assert (
        f"Your card: {NAMES[cards[0]]}" in out and "Legal moves: Bet | Pass" in out
    )  # sorted by name (issue 46)
    assert f"Your card: {NAMES[cards[1]]}" not in out  # the other card, never shown
    # a move the seat cannot see is not announced (how many there are is hidden in phantom games)
    assert "hidden from you" not in out and "Chance: Deal:" in out  # its own card's deal is
    assert "Payoffs:" in out and ("You win." in out or "You lose." in out)


@pytest.mark.slow
def test_a_human_plays_phantom_tic_tac_toe_that_reveals_the_count_of_turns(tmp_path) -> None:
    """`obstype=reveal-numturns` (the count of turns in the information state) stopped the human's
    first screen with an IndexError; now the game is played to its end, the count on screen."""
    cells = "".join(f"x({r},{c})\n" for r in range(3) for c in range(3))  # typed ahead: tried in order
    store = tmp_path / "s.sqlite"
    args = run_args("phantom_ttt:obstype=reveal-numturns", "human", "random", games=1, store=store)
    res = plylab_subprocess(*args, "--score", "off", input=cells)
    assert res.returncode == 0, res.stderr
    assert "Turns so far, both players' tries counted: 0;" in res.stdout
    assert "Final position:" in res.stdout and "hidden from you" not in res.stdout
