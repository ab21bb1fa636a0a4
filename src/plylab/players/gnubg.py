"""GNU Backgammon as a player of backgammon (`gnubg[:level=...]`): an opponent of known strength.

It plays gnubg's best play by gnubg's own cubeless money equity (gammons and backgammons counted, as
gnubg's levels choose, whatever OpenSpiel's `scoring_type` counts; `oracles.gnubg` ranks plays so)
at one of gnubg's named checker-play levels, as gnubg 1.07 defines them (eval.c's `aecSettings`, `aiSettingsMoveFilter`):

- `beginner`, `casual`, `intermediate`, `advanced`: its nets at 0 plies with noise of standard
  deviation 0.060, 0.050, 0.040 and 0.015 added to each output;
- `expert` (the default): its nets at 0 plies, no noise;
- `world_class`: 2 plies, pruning nets, gnubg's "normal" move filter (up to 8 plays within 0.16 of
  the best at 0 plies looked at deeper).

The noise is gnubg's deterministic noise (the evalcontext's deterministic flag, as gnubg's own levels
set it): drawn from a hash of the position, so the same position gets the same play, game after game.
As gnubg 1.07 is built for x86 (a signed `char` in that hash), the draw is not centred: the noise
mostly lowers every output by several standard deviations before gnubg clips it to [0, 1], so the
weak levels play as gnubg's own weak levels play on this machine, not as an unbiased noise would.
The grader never adds noise. Every call to gnubg has a wall-clock deadline (`timeout`, seconds).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..errors import UserError
from ..oracles.gnubg import INSTALL, GnubgOracle, GnubgProcess, Level, gnubg_path
from ..specs import Params
from .base import Decision, Player, Turn, register_player

# gnubg 1.07's named levels (eval.c's aecSettings: plies, pruning, noise; world class's move filter)
LEVELS = {
    "beginner": Level(0, noise=0.060, prune=False),
    "casual": Level(0, noise=0.050, prune=False),
    "intermediate": Level(0, noise=0.040, prune=False),
    "advanced": Level(0, noise=0.015, prune=False),
    "expert": Level(0, prune=False),
    "world_class": Level(2, "normal"),
}
LevelName = Literal["beginner", "casual", "intermediate", "advanced", "expert", "world_class"]


class GnubgOptions(Params):
    level: LevelName = "expert"
    timeout: float = Field(60.0, gt=0, le=3600)  # seconds one call to gnubg may take


@register_player
class GnubgPlayer(Player[GnubgOptions]):
    games = ("backgammon",)
    Options = GnubgOptions
    cpu_bound = True
    summary = (
        "GNU Backgammon 1.07's best play by its own cubeless equity at its named levels: level=beginner, casual, "
        "intermediate, advanced (0-ply with gnubg's deterministic noise), expert (0-ply, default) or "
        "world_class (2-ply)"
    )
    _oracle: GnubgOracle | None = None

    @classmethod
    def prepare(cls, options: Params) -> None:
        if gnubg_path() is None:
            raise UserError(f"player 'gnubg' needs GNU Backgammon: {INSTALL}")

    async def act(self, turn: Turn) -> Decision:
        if self._oracle is None:
            path = gnubg_path()
            if path is None:
                raise UserError(f"player 'gnubg' needs GNU Backgammon: {INSTALL}")
            self._oracle = GnubgOracle(GnubgProcess(path, self.options.timeout), LEVELS[self.options.level])
        return Decision(self._oracle.best_action(turn.state))  # a failing gnubg: the game left unfinished

    def close(self) -> None:
        if self._oracle is not None:
            self._oracle.close()
            self._oracle = None
