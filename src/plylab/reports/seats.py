"""How the site names a game's seats: the formulation's names, except where a game's own players
have names the formulation does not give. OpenSpiel's chess (and its variants) seats Black as
player 0 and White as player 1, White moving first; a generic formulation calls them "Player 1"
and "Player 2", so a reader would take Player 1 for the side that opens."""

from __future__ import annotations

from functools import cache

from ..errors import UserError
from ..games import Formulation, get_game
from ..oracles.uci import maps

CHESS_SEATS = ("Black", "White")  # OpenSpiel's chess: player 0 is Black


@cache
def is_chess(game: str) -> bool:
    """Whether the game named `game` (a stored spec) is chess or a variant OpenSpiel seats as chess."""
    try:
        return maps(get_game(game).name)
    except UserError:
        return False


def seat_names(game: str, f: Formulation | None) -> list[str]:
    """The two seats' names as the site prints them (seat 0 first)."""
    if is_chess(game):
        return list(CHESS_SEATS)
    return [f.seat_name(s) if f is not None else f"Player {s + 1}" for s in (0, 1)]


def first_mover(game: str) -> int:
    """The seat that moves first (0 but for chess, where White, player 1, opens)."""
    return 1 if is_chess(game) else 0
