"""Pig (OpenSpiel `pig`: two players, one die, the first to the target wins), graded exactly.

Registered as the generic games are (OpenSpiel's surface, `roll` and `stop`), with the exact
optimal policy of `oracles.pig` as its ground truth under every parameter that changes the game:
the target (`winscore`, at most 100), the die (`diceoutcomes`), a coin for a die (`piglet`) and the
horizon (`horizon`: decisions before the game is cut, a draw), each solved as its own table. Not
for more than two players (`players`): refused as exact in one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..oracles.pig import MAX_TARGET, PigOracle, offered
from .base import GameDef, GroundTruth, register_game
from .generic import game_def
from .params import game_type

if TYPE_CHECKING:
    from ..oracles import Oracle


def pig_oracle(game: GameDef) -> Oracle:
    """The game's table (its parameters' own; the limit cached on disk). It grades each decision
    itself and plays by `policy`: typed as the registry's oracle, whose callers check for `policy`."""
    return cast("Oracle", PigOracle.load_or_build(game.engine))


PIG_TRUTH = GroundTruth("exact", "value iteration (Neller & Presser 2004)", pig_oracle)


def derived_truth(game: GameDef) -> GroundTruth | None:
    """For a parametrised Pig: its own exact table where one is offered (two players, target <= 100)."""
    return PIG_TRUTH if offered(game.engine) else None


GAME = register_game(game_def(game_type("pig")))
GAME.derived_truth = derived_truth
GAME.ground_truth = derived_truth(GAME)
GAME.oracle_missing = f"no exact oracle: Pig is solved for two players and a target of at most {MAX_TARGET}"
