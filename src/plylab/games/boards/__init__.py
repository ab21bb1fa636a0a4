"""Drawn boards: the position of a replay as an SVG picture, written into the static site.

One module per family of games, each registering a drawer under the game's name in DRAWINGS:
`grid` (placement and moving games on a square board: tic-tac-toe, mnk, Connect Four, Othello, Go,
Breakthrough, Clobber, checkers, lines of action, chess from its FEN), `hexboard` (Hex, as
hexagons), `nim` (piles of sticks), `dots` (dots and boxes) and `dice` (backgammon, Pig). A drawer gets the engine state
and the marks to put on it (the last move, the exact value of each legal move) and returns SVG
text, or None when it cannot read the position; a game without a drawer keeps its text board. Nothing is fetched when a page is viewed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# isort: off
from . import grid, hexboard, nim, dots, dice  # noqa: F401 (each registers its drawings)

# isort: on
from .base import DRAWINGS, Marks, register_drawing

if TYPE_CHECKING:
    import pyspiel


def seat_colours(game: str) -> tuple[str, str] | None:
    """The colours of the two seats' pieces where the drawing gives each seat one (None: it does not)."""
    from .grid import SEAT_COLOURS

    return SEAT_COLOURS.get(game.split(":", 1)[0])


def draw(game: str, state: pyspiel.State, marks: Marks) -> str | None:
    """The position as SVG, or None when `game` has no drawing (or this position cannot be read)."""
    base = game.split(":", 1)[0]
    if base not in DRAWINGS or state is None:
        return None
    try:
        return DRAWINGS.get(base)(state, marks)
    except Exception:  # a drawing is an extra: a position it cannot read keeps the text board
        return None


__all__ = ["DRAWINGS", "Marks", "draw", "register_drawing", "seat_colours"]
