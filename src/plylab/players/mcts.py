"""OpenSpiel's C++ MCTS bot with a random-rollout evaluator (uct_c=2, one rollout by default)."""

from __future__ import annotations

import pyspiel
from pydantic import Field

from ..specs import Params
from .base import Decision, Player, Turn, register_player


class MctsOptions(Params):
    sims: int = Field(1000, ge=1)
    uct_c: float = Field(2.0, gt=0)
    rollouts: int = Field(1, ge=1)
    solve: bool = False


@register_player
class MctsPlayer(Player):
    name = "mcts"
    Options = MctsOptions
    summary = "OpenSpiel C++ MCTSBot, random rollouts; sims=N (default 1000)"
    cpu_bound = True

    def _bot(self) -> pyspiel.MCTSBot:
        bot = getattr(self, "_cached_bot", None)
        if bot is None:
            o: MctsOptions = self.options  # type: ignore[assignment]
            seed = self.rng.randrange(2**31)
            self._evaluator = pyspiel.RandomRolloutEvaluator(o.rollouts, seed)
            bot = pyspiel.MCTSBot(self.game.engine, self._evaluator, o.uct_c, o.sims, 1000, o.solve, seed + 1, False)
            self._cached_bot = bot
        return bot

    async def act(self, turn: Turn) -> Decision:
        return Decision(self._bot().step(turn.state))
