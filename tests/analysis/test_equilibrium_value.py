"""A game of hidden information solved below the CLI (analysis/equilibrium_value.py): what `plylab solve`
prints is this value, read from the game's equilibrium."""

from __future__ import annotations

import pytest

from plylab.analysis.equilibrium_value import hidden, solved
from plylab.errors import UserError
from plylab.games import get_game


def test_kuhn_poker_s_value_and_the_decision_after_a_bet() -> None:
    game = get_game("kuhn_poker")
    assert hidden(game) and not hidden(get_game("tic_tac_toe"))
    found = solved(game, "Deal:0 Deal:2 Bet")
    assert found.value[0] == pytest.approx(-1 / 18, abs=1e-3)  # the first player's known loss
    d = found.decision
    assert d is not None and d.to_move == 1 and set(d.actions) == {"Pass", "Bet"}
    assert sum(a.probability for a in d.actions.values()) == pytest.approx(1)
    assert d.actions["Bet"].loss == 0  # holding the king, calling a bet loses nothing
    assert solved(game, "").decision is None


@pytest.mark.parametrize(
    ("moves", "says"),
    [
        ("Deal:0 Deal:0", "is not legal there"),  # one card dealt twice
        ("Deal:0", "chance moves next"),
        ("Deal:0 Deal:1 Pass Pass", "the game is over after"),
    ],
)
def test_a_history_that_ends_at_no_decision_is_one_line(moves: str, says: str) -> None:
    with pytest.raises(UserError, match=says):
        solved(get_game("kuhn_poker"), moves)
