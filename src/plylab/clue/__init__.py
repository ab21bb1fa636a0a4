"""Clue: a six-player text deduction game for LLM agents, with a possibility matrix, a complete
SAT-backbone oracle, and the paper's metrics (see README.md in this folder).

Clue extends the registries below it from above: importing this package registers `python_clue` with
pyspiel, the game `clue` with plylab's games (played by the one session loop, `game.py`) and the Clue players
(in the one player registry, `plylab.players.PLAYERS`, as the `clue` family). Those registries never name
Clue: its players and its game are declared as entry points in pyproject.toml, which `plylab.registry` loads
when one of their names is first asked for.
"""

from .base import ClueDecision, CluePlayer, make_clue_player
from .cards import CLASSIC, Deck
from .engine import GAME_NAME, ClueGame, ClueState, load
from .events import Accusation, Event, Pass, Suggestion
from .matrix import Mark, PossibilityMatrix
from .oracle import ClueOracle
from .view import ClueView

# Register the players (the bots, then `clue-llm`) and the game. A broken module fails here, loudly.
# isort: off
from . import players, llm, game  # noqa: E402, F401

# isort: on

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
