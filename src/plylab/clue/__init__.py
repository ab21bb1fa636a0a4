"""Clue: a six-player text deduction game for LLM agents, with a possibility matrix, a complete
SAT-backbone oracle, and the paper's metrics (see README.md in this folder).

Importing this package registers `python_clue` with pyspiel, the game `clue` with plylab's games
(played by the one session loop, `game.py`) and the Clue players (in the one player registry,
`plylab.players.PLAYERS`, as the `clue` family).
"""

from importlib import import_module

from .base import ClueDecision, CluePlayer, make_clue_player
from .cards import CLASSIC, Deck
from .engine import GAME_NAME, ClueGame, ClueState, load
from .events import Accusation, Event, Pass, Suggestion
from .matrix import Mark, PossibilityMatrix
from .oracle import ClueOracle
from .view import ClueView

# Register the players (the bots, then `clue-llm`) and the game. A broken module fails here, loudly.
for _module in ("players", "llm", "game"):
    import_module(f"{__name__}.{_module}")

__all__ = [
    "CLASSIC",
    "GAME_NAME",
    "Accusation",
    "ClueDecision",
    "ClueGame",
    "ClueOracle",
    "CluePlayer",
    "ClueState",
    "ClueView",
    "Deck",
    "Event",
    "Mark",
    "Pass",
    "PossibilityMatrix",
    "Suggestion",
    "load",
    "make_clue_player",
]
