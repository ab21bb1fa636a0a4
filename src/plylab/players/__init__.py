"""Players: a protocol, a registry, and one module per player. Adding a player is one module."""

from importlib import import_module

from .base import (
    PLAYERS,
    Attempt,
    Decision,
    GameResult,
    Player,
    RunContext,
    Turn,
    make_player,
    player_class,
    register_player,
)

# One module per player; adding a player is one more name here.
for _module in ("random_player", "mcts", "optimal", "human", "llm", "reaper"):
    import_module(f"{__name__}.{_module}")

__all__ = [
    "PLAYERS",
    "Attempt",
    "Decision",
    "GameResult",
    "Player",
    "RunContext",
    "Turn",
    "make_player",
    "player_class",
    "register_player",
]
