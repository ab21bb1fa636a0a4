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
    assert f"Your card: {NAMES[cards[0]]}" in out and "Legal moves: Pass | Bet" in out
    assert f"Your card: {NAMES[cards[1]]}" not in out  # the other card, never shown
    assert "Chance: (hidden from you)" in out  # the other card's deal is announced as hidden
    assert "Payoffs:" in out and ("You win." in out or "You lose." in out)
