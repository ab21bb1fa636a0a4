"""What a game may add to the one session loop (`harness.session.play_game`), and the defaults.

Most games need nothing: their players come from the one registry, chance is drawn from the job's
own stream, and a move is its action. A game with its own player family, its own seeded deal, or
moves that say more than their action (a Clue turn states deductions; a referee judges them)
registers a `GameHooks` of its own beside its `GameDef` (`register_hooks`). The loop stays the same
for every game. The hooks are kept here, by game name, not on the `GameDef`: they name players and
records, which stand above the games, so a game (a floor below) never names them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import pyspiel

from ..games.chance import chance_stream, sample_chance
from ..jsontypes import JSONObject
from ..players import Decision, Player, RunContext, make_player
from ..seeds import derive_seed

if TYPE_CHECKING:
    from ..games import GameDef
    from .rows import MoveRow


class Annotator(Protocol):
    """A game's own account of its moves, kept beside each move (`MoveRow.annotation`) and the
    game (`GameRecord.extra`): what a mover stated and how it is judged against the hidden truth."""

    def before(self, state: pyspiel.State, seat: int, decision: Decision) -> JSONObject | None:
        """The annotation of the move about to be applied (`state` is before it)."""

    def after(self, state: pyspiel.State) -> None:
        """The move was applied; a game may complete earlier moves' annotations (a turn ends): each
        move is made, its annotation as JSON, when the game has ended."""

    def end(self, state: pyspiel.State, moves: list[MoveRow]) -> dict[str, Any] | None:
        """The game's own summary, stored as the game's `extra`."""

    def close(self) -> None: ...


class GameHooks:
    """The defaults: the registry's players, the job's chance stream, no annotations."""

    def player(self, spec: str, game: GameDef, seat: int, job_seed: int, context: RunContext) -> Player[Any]:
        """The player of `seat`, with its own stream derived from the job's seed and its seat."""
        return make_player(spec, game, derive_seed(job_seed, seat), context)

    def chance(self, game: GameDef, job_seed: int) -> Callable[[pyspiel.State], int]:
        """How the job's chance nodes are drawn (dice, deals): from the job's seed, never a player's."""
        stream = chance_stream(job_seed)
        return lambda state: sample_chance(state, stream)

    def annotator(self, game: GameDef, state: pyspiel.State) -> Annotator | None:
        """The game's annotator for one game (`state`: the initial state), or None."""
        return None


DEFAULT_HOOKS = GameHooks()


_OWN: dict[str, GameHooks] = {}


def register_hooks(game: GameDef, hooks: GameHooks) -> GameHooks:
    """Give `game` (and every parametrisation of it: the name is the key) hooks of its own."""
    _OWN[game.name] = hooks
    return hooks


def hooks_for(game: GameDef) -> GameHooks:
    """The game's own hooks where it registered some, else the defaults."""
    return _OWN.get(game.name, DEFAULT_HOOKS)
