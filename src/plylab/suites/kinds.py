"""Which kind of suite a game spec makes: positions of moves, or Clue deduction snapshots.

Kept apart from both kinds' modules so that reading a suite file (`file.py`) can tell the kinds
apart without importing how either is built.
"""

from __future__ import annotations

from ..games import GameDef

GAME = "clue"


def is_clue(game_spec: str) -> bool:
    """Whether the spec names Clue, whose suites hold deduction snapshots rather than moves."""
    return game_spec.split(":", 1)[0] == GAME


def clue_game(game_spec: str) -> GameDef:
    """The Clue game (registering it with plylab's games on first use)."""
    from .. import clue  # noqa: F401  registers the game `clue`, its hooks and its players
    from ..games import get_game

    return get_game(game_spec)
