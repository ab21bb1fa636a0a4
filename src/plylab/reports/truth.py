"""Which ground truth graded a game's moves, as the site groups its tables: an exact solver, an
equilibrium, or an engine — read from what the game declares (`GameDef.ground_truth`), never
guessed from the game's name."""

from __future__ import annotations

from functools import cache

from ..errors import UserError
from ..games import get_game
from ..games.base import TruthKind

Truth = TruthKind
TRUTHS: tuple[Truth, ...] = ("exact", "equilibrium", "engine")  # the site's order
TITLES: dict[Truth, str] = {"exact": "Exact values", "equilibrium": "Equilibrium", "engine": "Engine"}


@cache
def ground_truth(game: str) -> Truth | None:
    """The ground truth of the game named `game` (a stored spec); None for a game without one, or one
    this install no longer knows."""
    try:
        truth = get_game(game).ground_truth
    except UserError:
        return None
    return None if truth is None else truth.kind
