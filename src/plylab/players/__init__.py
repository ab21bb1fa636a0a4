"""Players: base classes, one registry for every game family, and one module per player.
Adding a player is one module (and, for a lazily loaded one, one entry below)."""

from .base import (
    PLAYERS,
    Attempt,
    BasePlayer,
    Decision,
    GameResult,
    Player,
    RunContext,
    Turn,
    family_names,
    make_player,
    player_class,
    register_player,
    resolve,
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
            "equilibrium": "equilibrium",
            "human": "human",
            "llm": "llm",
            "reaper": "reaper",
            "memento": "reaper",
            "cbr": "reaper",
            "stockfish": "engines",
            "fairy-stockfish": "engines",
            "gnugo": "gnugo",
            "gnubg": "gnubg",
        }.items()
    }
)
# A best response reads a stored run's empirical strategy, so it stands above the store (analysis).
PLAYERS.defer({"best_response": "plylab.analysis.best_response"})
# Clue's players (the `clue` family, played by `plylab clue run`): importing the package registers all four.
PLAYERS.defer(dict.fromkeys(("clue-random", "clue-matrix", "clue-oracle", "clue-llm"), "plylab.clue"))

__all__ = [
    "PLAYERS",
    "Attempt",
    "BasePlayer",
    "Decision",
    "GameResult",
    "Player",
    "RunContext",
    "Turn",
    "family_names",
    "make_player",
    "player_class",
    "register_player",
    "resolve",
]
