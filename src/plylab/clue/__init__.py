"""Clue: a six-player text deduction game for LLM agents, with a possibility matrix, a complete
SAT-backbone oracle, and the paper's metrics (see README.md in this folder).

Importing this package registers `python_clue` with pyspiel and the Clue players.
"""

from .cards import CLASSIC, Deck
from .engine import GAME_NAME, ClueGame, ClueState, load
from .events import Accusation, Event, Pass, Suggestion
from .matrix import Mark, PossibilityMatrix
from .oracle import ClueOracle
from .players import CLUE_PLAYERS, ClueDecision, CluePlayer, make_clue_player
from .view import ClueView

__all__ = [
    "CLASSIC", "CLUE_PLAYERS", "GAME_NAME", "Accusation", "ClueDecision", "ClueGame", "ClueOracle", "CluePlayer",
    "ClueState", "ClueView", "Deck", "Event", "Mark", "Pass", "PossibilityMatrix", "Suggestion", "load",
    "make_clue_player",
]
