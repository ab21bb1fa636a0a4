"""Breakthrough (OpenSpiel `breakthrough`, 8x8 by default; `breakthrough:rows=6,columns=6`).

A first-class game as in the papers' public code: written rules and a `hidden` formulation that
never names the game and draws the pieces with other marks. Moves keep OpenSpiel's names
(from-square to-square, `*` for a capture, e.g. `c4d3*`), so both formulations are the engine's
bijection by construction; a reply may leave out the `*`.
"""

from __future__ import annotations

import pyspiel

from .base import GameDef, register_game
from .generic import Generic, derived_truth
from .rules import MOVES

GAME = register_game(
    GameDef(
        name="breakthrough",
        title="Breakthrough",
        openspiel_name="breakthrough",
        summary="8x8 board, two rows of pieces each; the first to reach the far row wins.",
        aliases=("breakthrough", "break-through"),
        derived_truth=derived_truth,
    )
)


def _size(game: GameDef) -> tuple[int, int]:
    p = game.engine.get_parameters()
    return int(p["rows"]), int(p["columns"])


@GAME.add_formulation
class Standard(Generic):
    name = "standard"
    marks = ("b", "w")

    def seat_name(self, seat: int) -> str:
        return f"{('Black', 'White')[seat]} ({self.marks[seat]})"

    def rules(self) -> str:
        rows, cols = _size(self.game)
        last = chr(ord("a") + cols - 1)
        b, w = self.marks
        return (
            f"We are playing Breakthrough on a board of {rows} rows (1 at the bottom to {rows} at the "
            f"top) and {cols} columns (a to {last}). Black ({b}) starts with pieces filling the top two "
            f"rows and moves first; White ({w}) fills the bottom two rows. On your turn you move one "
            "piece one square forward (Black down, White up), straight or diagonally. A straight move "
            "needs an empty square; a diagonal move may go to an empty square or capture an enemy "
            "piece there (removing it). Pieces never move backwards or sideways. The first player to "
            "bring a piece to the far row wins (Black: row 1; White: the top row); a player with no "
            "pieces left loses. A move names the squares it goes from and to, like d7d6; a capture "
            f"ends with *, like c4d3*. {MOVES}"
        )

    def board(self, state: pyspiel.State) -> str:
        text = super().board(state)
        if self.marks == Standard.marks:
            return text
        table = str.maketrans({"b": self.marks[0], "w": self.marks[1]})
        lines = text.split("\n")  # the last line names the columns: leave its letters alone
        return "\n".join([ln.translate(table) for ln in lines[:-1]] + lines[-1:])


@GAME.add_formulation
class Hidden(Standard):
    """The papers' Hid: same board and moves; markers X and O; the game's name never said."""

    name = "hidden"
    marks = ("X", "O")

    def seat_name(self, seat: int) -> str:
        return f"Player {seat + 1} ({self.marks[seat]})"

    def title(self) -> str:
        return "Pieces racing across the board"

    def rules(self) -> str:
        rows, cols = _size(self.game)
        last = chr(ord("a") + cols - 1)
        x, o = self.marks
        return (
            f"Two players play on a board of {rows} rows (1 at the bottom to {rows} at the top) and "
            f"{cols} columns (a to {last}). Player 1 ({x}) starts with pieces on every square of the "
            f"top two rows and moves first; Player 2 ({o}) has pieces on every square of the bottom "
            "two rows. Players alternate. On your turn you advance one of your pieces by one square "
            "towards the opponent's side (Player 1 goes down, Player 2 goes up), either straight ahead "
            "or diagonally ahead. A straight step must go to an empty square. A diagonal step may go to "
            "an empty square or onto an opponent's piece, which is then removed from the board. "
            "Pieces never step back or sideways. You win as soon as one of your pieces reaches the "
            f"opponent's back row (row 1 for Player 1, row {rows} for Player 2), or when the opponent "
            "has no pieces left. A move names the square a piece leaves and the square it goes to, "
            f"like d7d6; a move that removes an opponent's piece ends with *, like c4d3*. {MOVES}"
        )


GAME.ground_truth = derived_truth(GAME)  # the default 8x8 board is far too large; small boards fit
