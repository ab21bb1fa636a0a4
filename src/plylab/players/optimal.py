"""The paper's stochastic Optimal opponent: uniform among all moves of the best exact value; in a
game of hidden information, the equilibrium strategy sampled at its information set (players.equilibrium)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from ..oracles import best_actions
from ..specs import Params, Spec
from .base import Decision, Player, RunContext, Turn, register_player
from .equilibrium import sample

if TYPE_CHECKING:
    from ..games import GameDef


class OptimalOptions(Params):
    epsilon: float = Field(0.0, ge=0.0, le=1.0)
    by: Literal["value", "score"] = "value"


@register_player
class OptimalPlayer(Player[OptimalOptions]):
    needs_oracle = True  # plans refuse it on a game with no exact oracle
    Options = OptimalOptions
    summary = "minimax, uniform tie-breaking among best moves; epsilon=E random moves; by=value|score"

    def __init__(
        self, spec: Spec, options: OptimalOptions, game: GameDef, seed: int, context: RunContext | None = None
    ) -> None:
        super().__init__(spec, options, game, seed, context)
        self.oracle = self.game.oracle()  # fails here, clearly, for a game with no oracle

    async def act(self, turn: Turn) -> Decision:
        o = self.options
        legal = turn.state.legal_actions()
        if o.epsilon and self.rng.random() < o.epsilon:
            return Decision(self.rng.choice(legal), note={"epsilon": True})
        policy = getattr(self.oracle, "policy", None)  # an equilibrium (hidden information)
        if policy is not None:
            return Decision(sample(policy(turn.state), self.rng))
        best = best_actions(self.oracle.move_values(turn.state), by=o.by)
        return Decision(self.rng.choice(best))
