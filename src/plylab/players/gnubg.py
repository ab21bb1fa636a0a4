"""GNU Backgammon as a player of backgammon (`gnubg[:level=...]`): an opponent of known strength.

It plays the play gnubg values best (the mover's cubeless equity after it, as `oracles.gnubg`
grades), at one of gnubg's named checker-play levels without noise: `expert` (0-ply, its nets alone;
the default, and the level backgammon is graded at, so it never loses equity by that grade) and
`world_class` (2-ply lookahead over every play, gnubg's move filters off: about a second a move on
one core). gnubg's noisy levels (beginner .. advanced) are not offered: its Python `evaluate` adds
the noise to the nets' outputs, not to a play's equity, and its values are then not a play's.
Every call to gnubg has a wall-clock deadline (`timeout`, seconds).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..errors import ProviderFailure, UserError
from ..oracles.gnubg import INSTALL, GnubgError, GnubgOracle, GnubgProcess, gnubg_path
from ..specs import Params
from .base import Decision, Player, Turn, register_player

LEVELS = {"expert": 0, "world_class": 2}  # gnubg's named levels (noise off) -> plies


class GnubgOptions(Params):
    level: Literal["expert", "world_class"] = "expert"
    timeout: float = Field(60.0, gt=0, le=3600)  # seconds one call to gnubg may take


@register_player
class GnubgPlayer(Player[GnubgOptions]):
    name = "gnubg"
    games = ("backgammon",)
    Options = GnubgOptions
    cpu_bound = True
    summary = "GNU Backgammon 1.07's best play by cubeless equity: level=expert (0-ply, default) or world_class (2-ply)"
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
        try:
            values = self._oracle.play_values(turn.state)
        except GnubgError as exc:
            raise ProviderFailure(
                "engine", f"gnubg failed twice ({exc}); re-run the same command to resume"
            ) from None
        return Decision(max(sorted(values), key=lambda a: values[a]))

    def close(self) -> None:
        if self._oracle is not None:
            self._oracle.close()
            self._oracle = None
