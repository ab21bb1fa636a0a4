"""Which ground truth graded a game's moves, as the site groups its tables and words its pages: an
exact solver, an equilibrium, or an engine — read from what the game declares
(`GameDef.ground_truth`), never guessed from the game's name."""

from __future__ import annotations

from functools import cache

from ..errors import UserError
from ..games import get_game
from ..games.base import GroundTruth, TruthKind
from ..oracles.graded import Decision, Grade, Unit, decision, scale_of
from .payload import TruthView

Truth = TruthKind
TRUTHS: tuple[Truth, ...] = ("exact", "equilibrium", "engine")  # the site's order
TITLES: dict[Truth, str] = {"exact": "Exact values", "equilibrium": "Equilibrium", "engine": "Engine"}


@cache
def declared(game: str) -> GroundTruth | None:
    """The ground truth the game named `game` (a stored spec) declares; None for a game without one,
    or one this install no longer knows."""
    try:
        return get_game(game).ground_truth
    except UserError:
        return None


def ground_truth(game: str) -> Truth | None:
    """The kind of the game's ground truth; None where it has none."""
    truth = declared(game)
    return None if truth is None else truth.kind


def judged(game: str, grade: Grade | None, played: int | None) -> Decision | None:
    """A stored grade of `game` as the one graded decision; None for an ungraded move or a failure."""
    truth = declared(game)
    if truth is None or grade is None or played is None:
        return None
    return decision(grade, played, truth.kind, truth.name)


def view(game: str, unit: Unit = "score") -> TruthView | None:
    """The words the game's pages print about its ground truth (`unit`: the unit its grades are in)."""
    truth = declared(game)
    if truth is None:
        return None
    s = scale_of(truth.kind, unit, truth.name)
    return {
        "kind": truth.kind,
        "name": truth.name,
        "value": s.value,
        "unit": s.unit,
        "best": s.best,
        "lost": s.lost,
        "against": s.against,
    }
