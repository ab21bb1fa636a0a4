"""The equilibrium oracle attached to the games of hidden information small enough to solve
(oracles.equilibrium.BOUNDS under its limit): Kuhn poker, Leduc poker, Liar's dice with one die
each, and any parametrisation of them that fits (`liars_dice:dice_sides=4`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..oracles.equilibrium import BOUNDS, EquilibriumOracle, fits, limit
from .base import GAMES, GameDef, GroundTruth

if TYPE_CHECKING:
    from ..oracles import Oracle


def equilibrium_oracle(game: GameDef) -> Oracle:
    """The game's equilibrium (built on first use, cached on disk under its canonical name).

    It grades each decision itself (`grade`: the session's `SelfGrader`) and has no exact move values:
    typed as the registry's oracle, whose every caller checks for `move_values` or `policy` first."""
    return cast("Oracle", EquilibriumOracle.load_or_build(game.engine, game.spec))


EQUILIBRIUM = GroundTruth("equilibrium", "cfr+ equilibrium", equilibrium_oracle)


def derived_equilibrium(game: GameDef) -> GroundTruth | None:
    """For a parametrised game: the equilibrium where it fits the bound, else no ground truth."""
    return EQUILIBRIUM if fits(game.engine) else None


def attach_every_equilibrium() -> None:
    """Give each registered game of `BOUNDS` its equilibrium (where its default fits the limit)."""
    for name in BOUNDS:
        if name not in GAMES:
            continue
        game = GAMES.get(name)
        game.derived_truth = derived_equilibrium
        game.oracle_missing = (
            f"no equilibrium oracle: the game has more information sets than the limit "
            f"(PLYLAB_EQUILIBRIUM_LIMIT, {limit():,})"
        )
        if fits(game.engine):
            game.ground_truth = EQUILIBRIUM
