"""Which ground truth graded a game's moves, as the site groups its tables: an exact solver, an
equilibrium, or an engine. One function, so the site asks it in one place (and the day a game
declares its ground truth itself, only this function changes)."""

from __future__ import annotations

from functools import cache
from typing import Literal

from ..analysis.equilibrium import has_equilibrium
from ..errors import UserError
from ..games import get_game
from ..oracles.uci import maps

Truth = Literal["exact", "equilibrium", "engine"]
TRUTHS: tuple[Truth, ...] = ("exact", "equilibrium", "engine")  # the site's order
TITLES: dict[Truth, str] = {"exact": "Exact values", "equilibrium": "Equilibrium", "engine": "Engine"}


@cache
def ground_truth(game: str) -> Truth | None:
    """The ground truth of the game named `game` (a stored spec); None for a game without one, or one
    this install no longer knows."""
    if has_equilibrium(game):
        return "equilibrium"
    try:
        definition = get_game(game)
    except UserError:
        return None
    if maps(definition.name):
        return "engine"
    return "exact" if definition.has_oracle else None
