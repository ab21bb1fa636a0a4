"""Players: a protocol, a registry, and one module per player. Adding a player is one module."""

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

# One module per player, imported when one of its names is first used (a report of MCTS games
# loads no model code); adding a player is one more entry here.
PLAYERS.defer(
    {
        name: f"{__name__}.{module}"
        for name, module in {
            "random": "random_player",
            "mcts": "mcts",
            "optimal": "optimal",
            "human": "human",
            "llm": "llm",
            "reaper": "reaper",
            "memento": "reaper",
            "cbr": "reaper",
        }.items()
    }
)

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
