"""Players: base classes, one registry for every game family, and one module per player.

Adding a player is one module and one line in pyproject.toml (`[project.entry-points."plylab.players"]`,
`name = "module:Class"`), the one place its name is written: the registry imports the module when the name is
first used (a report of MCTS games loads no model code), and players that stand above this floor (the best
response, Clue's) are declared the same way, so nothing here names them."""

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
