"""Players: a protocol, a registry, and one module per player. Adding a player is one module."""

from importlib import import_module

from .base import PLAYERS, Attempt, Decision, GameResult, Player, RunContext, Turn, make_player, player_class, register_player

_MODULES = ["random_player", "mcts", "optimal", "human"]
# Optional players (LLM, REAPER, Clue) register themselves when their module imports cleanly.
_OPTIONAL = ["llm", "reaper", "plylab.games.clue.players"]

for _m in _MODULES:
    import_module(f"{__name__}.{_m}")
for _m in _OPTIONAL:
    try:
        import_module(_m if "." in _m else f"{__name__}.{_m}")
    except ModuleNotFoundError as _exc:  # not written yet, or an extra not installed
        if _exc.name and _exc.name.startswith("plylab"):
            continue
        raise

__all__ = ["PLAYERS", "Attempt", "Decision", "GameResult", "Player", "RunContext", "Turn", "make_player", "player_class", "register_player"]
