"""Tic-tac-toe (OpenSpiel `tic_tac_toe`): a draw under optimal play; 5,478 reachable states."""

from __future__ import annotations

import pyspiel

from ..errors import UserError
from ..oracles.minimax import MinimaxTable
from .base import Formulation, GameDef, register_game

COLS = "ABC"


def cell_name(action: int) -> str:
    return f"{COLS[action % 3]}{action // 3 + 1}"


def board_cells(state: pyspiel.State) -> list[str]:
    """The nine cells as 'x', 'o' or '.' in engine order (row-major)."""
    rows = str(state).split("\n")
    return [ch for row in rows[:3] for ch in row.strip()]


def _parse_moves(game: GameDef, text: str) -> list[int]:
    """Cells as A1..C3 (column letter, row number), or engine actions 0-8, space/comma separated."""
    out = []
    for tok in text.replace(",", " ").split():
        t = tok.strip().upper()
        if len(t) == 2 and t[0] in COLS and t[1] in "123":
            out.append(COLS.index(t[0]) + 3 * (int(t[1]) - 1))
        elif t.isdigit() and 0 <= int(t) <= 8:
            out.append(int(t))
        else:
            raise UserError(f"bad tic-tac-toe move '{tok}'; accepted: cells A1..C3 (or engine actions 0-8)")
    return out


GAME = register_game(
    GameDef(
        name="tic_tac_toe",
        title="Tic-tac-toe",
        openspiel_name="tic_tac_toe",
        summary="3x3 board, three in a row wins; a draw under optimal play.",
        recognition=(r"tic[\s-]*tac[\s-]*toe", r"noughts\s+and\s+crosses", r"\bxs?\s+and\s+os?\b", r"\btris\b"),
        oracle_factory=lambda: MinimaxTable.load_or_build(GAME.engine, "tic_tac_toe"),
        parse_moves=_parse_moves,
    )
)


@GAME.add_formulation
class Standard(Formulation):
    name = "standard"
    marks = ("X", "O")

    def seat_name(self, seat: int) -> str:
        return self.marks[seat]

    def rules(self) -> str:
        x, o = self.marks
        return (
            "We are playing tic-tac-toe on a 3x3 grid. Columns are A, B, C (left to right) and rows "
            f"are 1, 2, 3 (top to bottom), so each cell is named like B2. Players {x} and {o} take "
            f"turns; {x} moves first. On your turn you place your mark in one empty cell. The first "
            "player with three marks in a row, column or diagonal wins. If all nine cells are "
            "filled with no such line, the game is a draw."
        )

    def render_state(self, state: pyspiel.State) -> str:
        symbols = {"x": self.marks[0], "o": self.marks[1], ".": "."}
        cells = [symbols[c] for c in board_cells(state)]
        lines = ["   A B C"]
        for r in range(3):
            lines.append(f"{r + 1}  " + " ".join(cells[3 * r : 3 * r + 3]))
        mover = state.current_player()
        if mover >= 0:
            lines.append(f"You are {self.marks[mover]}; it is your move.")
        return "\n".join(lines)

    def action_label(self, state: pyspiel.State, action: int) -> str:
        return cell_name(action)
