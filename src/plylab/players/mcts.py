"""OpenSpiel's C++ MCTS bot with a random-rollout evaluator: the paper's MCTS opponent.

Defaults are the paper's (seed 003, l.49): simulation budget n=1000 for tic-tac-toe and Nim and
n=5000 for Connect Four, "other hyperparameters ... the OpenSpiel defaults" -- uct_c=2, one random
rollout, and MCTS-Solver (`solve=true`, OpenSpiel's MCTSBot default and the paper's public code),
which backs proven wins and losses up the tree. `solve=false` (plain UCT, a weaker opponent) and
`sims=N` are opt-in keys.
"""

from __future__ import annotations

import pyspiel
from pydantic import Field

from ..specs import Params
from .base import Decision, Player, Turn, register_player

# The paper's budgets per game (l.49); any other game gets DEFAULT_SIMS.
PAPER_SIMS = {"tic_tac_toe": 1000, "nim": 1000, "connect_four": 5000}
DEFAULT_SIMS = 1000


def paper_sims(game: str) -> int:
    """The simulation budget the paper uses for `game` (l.49)."""
    return PAPER_SIMS.get(game, DEFAULT_SIMS)


class MctsOptions(Params):
    sims: int | None = Field(None, ge=1, le=2**31 - 1)  # None: the paper's budget for the game (paper_sims)
    uct_c: float = Field(2.0, gt=0)
    rollouts: int = Field(1, ge=1, le=2**31 - 1)
    solve: bool = True  # MCTS-Solver, as OpenSpiel's default and the paper


@register_player
class MctsPlayer(Player[MctsOptions]):
    name = "mcts"
    Options = MctsOptions
    summary = (
        "OpenSpiel C++ MCTSBot (MCTS-Solver), random rollouts; sims=N (default: the paper's 1000 for "
        "tic-tac-toe and Nim, 5000 for Connect Four), solve=false for plain UCT, uct_c, rollouts"
    )
    cpu_bound = True

    @property
    def sims(self) -> int:
        o = self.options
        return o.sims if o.sims is not None else paper_sims(self.game.name)

    def _bot(self) -> pyspiel.MCTSBot:
        bot = getattr(self, "_cached_bot", None)
        if bot is None:
            o = self.options
            seed = self.rng.randrange(2**31)
            self._evaluator = pyspiel.RandomRolloutEvaluator(o.rollouts, seed)
            bot = pyspiel.MCTSBot(
                self.game.engine, self._evaluator, o.uct_c, self.sims, 1000, o.solve, seed + 1, False
            )
            self._cached_bot = bot
        return bot

    def search(self, state: pyspiel.State) -> pyspiel.SearchNode:
        """One search from `state` with this player's bot; the root shows what the search proved."""
        return self._bot().mcts_search(state)

    async def act(self, turn: Turn) -> Decision:
        return Decision(self._bot().step(turn.state))
