"""Uniform over legal moves, from the game's seeded stream."""

from __future__ import annotations

from .base import Decision, Player, Turn, register_player


@register_player
class RandomPlayer(Player):
    summary = "uniform over legal moves, seeded"

    async def act(self, turn: Turn) -> Decision:
        return Decision(self.rng.choice(turn.state.legal_actions()))
