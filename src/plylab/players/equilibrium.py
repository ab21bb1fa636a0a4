"""The Optimal opponent of a hidden-information game: its equilibrium strategy, sampled from the
player's seed at its own information set (`optimal` plays the same there)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from .base import Decision, Player, RunContext, Turn, register_player

if TYPE_CHECKING:  # OpenSpiel loads when a game is played, not when a spec is read (optimal imports this)
    from ..games import GameDef
    from ..oracles.equilibrium import EquilibriumOracle
    from ..specs import Params, Spec


def sample(policy: dict[int, float], rng: random.Random) -> int:
    """One action drawn with the policy's probabilities (actions in order: a seed gives one game)."""
    actions = sorted(policy)
    weights = [max(0.0, policy[a]) for a in actions]
    if sum(weights) <= 0.0:
        return rng.choice(actions)
    return int(rng.choices(actions, weights=weights)[0])


def refused(game: GameDef) -> str | None:
    """Why a player of the equilibrium cannot play `game` (checked before any game starts)."""
    from ..oracles.equilibrium import BOUNDS

    if game.openspiel_name not in BOUNDS or not game.has_oracle:
        return (
            "it plays games of hidden information with an equilibrium oracle "
            f"({', '.join(BOUNDS)}, within PLYLAB_EQUILIBRIUM_LIMIT)"
        )
    return None


def equilibrium_of(player: Player[Any]) -> EquilibriumOracle:
    """The game's equilibrium oracle, or one line saying the game has none."""
    from ..oracles.equilibrium import EquilibriumOracle

    oracle = player.game.oracle()  # a clear line for a game with no oracle at all
    if not isinstance(oracle, EquilibriumOracle):
        raise UserError(
            f"player '{player.name}' plays games of hidden information with an equilibrium oracle "
            f"(kuhn_poker, leduc_poker, liars_dice), not '{player.game.spec}'"
        )
    return oracle


@register_player
class EquilibriumPlayer(Player):
    needs_oracle = True
    summary = "samples the game's equilibrium strategy (CFR+) at its information set, seeded"

    @classmethod
    def refusal(cls, game: GameDef) -> str | None:
        return refused(game) or super().refusal(game)

    def __init__(
        self, spec: Spec, options: Params, game: GameDef, seed: int, context: RunContext | None = None
    ) -> None:
        super().__init__(spec, options, game, seed, context)
        self.oracle = equilibrium_of(self)

    async def act(self, turn: Turn) -> Decision:
        return Decision(sample(self.oracle.policy(turn.state), self.rng))
