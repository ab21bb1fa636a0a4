"""Connect Four, 7 columns x 6 rows (OpenSpiel `connect_four`): a first-player win."""

from __future__ import annotations

import pyspiel

from ..errors import UserError
from ..oracles import Oracle
from .base import Formulation, GameDef, GroundTruth, register_game
from .generic import derived_truth


def _oracle(game: GameDef) -> Oracle:
    try:
        from ..oracles.connect_four import ConnectFourOracle
    except ImportError as exc:  # the compiled solver is missing from this install
        raise UserError(f"the Connect Four solver is not available: {exc}") from None
    return ConnectFourOracle()


def _parse_moves(game: GameDef, text: str) -> list[int]:
    """Columns 1-7 from the start, e.g. '4453' (spaces and commas allowed)."""
    digits = [c for c in text if not c.isspace() and c != ","]
    if any(c not in "1234567" for c in digits):
        raise UserError(f"bad Connect Four move sequence '{text}'; accepted: columns 1-7, e.g. 4453")
    return [int(c) - 1 for c in digits]


def board_rows(state: pyspiel.State) -> list[str]:
    """Rows top to bottom as strings of 'x', 'o', '.' (engine text)."""
    rows = state.get_game().get_parameters().get("rows", 6)
    return [row.strip() for row in str(state).split("\n") if row.strip()][: int(rows)]


def board_size(game: GameDef) -> tuple[int, int, int]:
    """(columns, rows, discs in a row to win) of this instance (`connect_four:rows=4,columns=5`)."""
    p = game.engine.get_parameters()
    return int(p.get("columns", 7)), int(p.get("rows", 6)), int(p.get("x_in_row", 4))


GAME = register_game(
    GameDef(
        name="connect_four",
        title="Connect Four",
        openspiel_name="connect_four",
        summary="7x6 vertical board, four in a row wins; a first-player win under optimal play.",
        recognition=(
            r"\bconnect[\s-]*(?:four|4)\b",
            r"(?-i:\bFour[\s-]+in[\s-]+a[\s-]+Row\b)",
            r"\bcaptain'?s\s+mistress\b",
            r"\bgravitrips\b",
        ),
        ground_truth=GroundTruth("exact", "connect four solver", _oracle),
        parse_moves=_parse_moves,
        move_name=lambda game, action: action + 1,
        derived_truth=derived_truth,  # the solver is for 7x6; a small board gets the generic table
    )
)


@GAME.add_formulation
class Standard(Formulation):
    name = "standard"
    marks = ("X", "O")
    order_actions = False  # columns left to right (10 after 9), as plybench lists them

    def seat_name(self, seat: int) -> str:
        return self.marks[seat]

    def rules(self) -> str:
        x, o = self.marks
        cols, rows, k = board_size(self.game)
        line = "four" if k == 4 else str(k)
        return (
            f"We are playing Connect Four on a vertical board of {cols} columns (numbered 1 to {cols}, "
            f"left to right) and {rows} rows. Players {x} and {o} alternate; {x} moves first. On your "
            "turn you drop one disc into a column that is not full; it falls to the lowest empty cell "
            f"of that column. The first player with {line} discs in a line (horizontal, vertical or "
            "diagonal) wins. If the board fills up with no such line, the game is a draw. A move is "
            "the column number."
        )

    def render_state(self, state: pyspiel.State) -> str:
        symbols = {"x": self.marks[0], "o": self.marks[1], ".": "."}
        lines = [" ".join(symbols[c] for c in row) for row in board_rows(state)]
        lines.append(" ".join(str(c) for c in range(1, board_size(self.game)[0] + 1)))
        mover = state.current_player()
        if mover >= 0:
            lines.append(f"You are {self.marks[mover]}; it is your move.")
        return "\n".join(lines)

    def action_label(self, state: pyspiel.State, action: int) -> str:
        return str(action + 1)
