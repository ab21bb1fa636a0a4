"""Short rules for the generic games, written per game where we ship one.

A game without written rules gets OpenSpiel's long name and a pointer to the listed moves, which is
what a player who knows the game needs; `relabel` hides the name either way. Texts read the
engine's parameters, so `mnk:m=4,n=4,k=3` is described as a 4x4 board with 3 in a row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from .base import GameDef

MOVES = "Each position lists the legal moves; answer with exactly one of them, written as listed."
# The same sentence where the llm player hides the list (`legal=hidden`).
MOVES_UNLISTED = "Answer with exactly one legal move, written as the game writes its moves."


def _p(game: GameDef) -> dict[str, object]:
    return cast(dict[str, object], game.engine.get_parameters())


def _mnk(game: GameDef) -> str:
    p = _p(game)
    m, n, k = p.get("m", 15), p.get("n", 15), p.get("k", 5)
    return (
        f"We are playing an m,n,k-game (generalised tic-tac-toe) on a board with {m} columns and {n} "
        f"rows. Two players alternate; the first player (x) moves first. On your turn you put your "
        f"mark on one empty cell, named o(row,column) or x(row,column) from 0. The first player with "
        f"{k} marks in an unbroken horizontal, vertical or diagonal line wins; a full board with no "
        f"such line is a draw."
    )


def _hex(game: GameDef) -> str:
    p = _p(game)
    rows, cols = p.get("num_rows", 11), p.get("num_cols", 11)
    return (
        f"We are playing Hex on a {cols}x{rows} rhombus of hexagonal cells (columns a, b, c, ..., rows "
        "1, 2, 3, ...). Two players alternate placing a stone of their colour on an empty cell; "
        "stones never move. The first player (x) tries to connect the top and bottom edges with "
        "an unbroken chain of their stones; the second player (o) the left and right edges. The "
        "first to connect their two edges wins; Hex has no draws."
    )


def _clobber(game: GameDef) -> str:
    return (
        "We are playing Clobber. Every square starts with a stone, alternating colours like a "
        "checkerboard. On your turn you move one of your stones onto an orthogonally adjacent "
        "square holding an opponent's stone, which is removed (clobbered). Every move must "
        "capture. The player who cannot move on their turn loses."
    )


def _dots_and_boxes(game: GameDef) -> str:
    p = _p(game)
    return (
        f"We are playing Dots and Boxes on a grid of {p.get('num_rows', 2)}x{p.get('num_cols', 2)} "
        "boxes. Players take turns drawing one horizontal (h) or vertical (v) line between two "
        "adjacent dots. A player who completes the fourth side of a box owns it and must move "
        "again. When every line is drawn, the player owning more boxes wins; equal ownership is "
        "a draw."
    )


def _othello(game: GameDef) -> str:
    return (
        "We are playing Othello (Reversi) on an 8x8 board. On your turn you place a disc of your "
        "colour so that it brackets one or more straight lines of opponent discs between the new "
        "disc and another of yours; every bracketed disc flips to your colour. If you have no such "
        "move you must pass. When neither player can move, the one with more discs wins."
    )


def _pig(game: GameDef) -> str:
    p = _p(game)
    return (
        f"We are playing Pig with a {p.get('diceoutcomes', 6)}-sided die. On your turn you repeatedly "
        "choose to roll or stop. Each roll adds its value to your turn total, except a 1, which "
        "loses the turn total and ends your turn. Stopping adds the turn total to your score and "
        f"ends your turn. The first player to reach {p.get('winscore', 100)} points wins."
    )


def _amazons(game: GameDef) -> str:
    return (
        "We are playing the Game of the Amazons. Each player has four amazons that move like chess "
        "queens. A turn is in parts: move one of your amazons any distance in a straight line over "
        "empty squares, then from where it lands shoot an arrow like a queen move to an empty "
        "square, which blocks that square for the rest of the game. The player who cannot move "
        "loses."
    )


WRITTEN: dict[str, Callable[[GameDef], str]] = {
    "mnk": _mnk,
    "hex": _hex,
    "clobber": _clobber,
    "dots_and_boxes": _dots_and_boxes,
    "othello": _othello,
    "pig": _pig,
    "amazons": _amazons,
}


def rules_text(game: GameDef) -> str:
    """The game's rules as a player reads them, ending with how moves are written."""
    written = WRITTEN.get(game.openspiel_name)
    if written is not None:
        return f"{written(game)} {MOVES}"
    return (
        f"We are playing the game of {game.engine.get_type().long_name} under its standard rules "
        f"(as implemented by OpenSpiel, parameters: {game.parameters_text()}). Two players "
        f"alternate as Player 1 and Player 2. {MOVES}"
    )
