"""Connect Four, 7 columns x 6 rows (OpenSpiel `connect_four`): a first-player win."""

from __future__ import annotations

import pyspiel

from ..errors import UserError
from .base import Formulation, GameDef, register_game


def _oracle():
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
    return [row.strip() for row in str(state).split("\n") if row.strip()][:6]


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
        oracle_factory=_oracle,
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
            "We are playing Connect Four on a vertical board of 7 columns (numbered 1 to 7, left to "
            f"right) and 6 rows. Players {x} and {o} alternate; {x} moves first. On your turn you drop "
            "one disc into a column that is not full; it falls to the lowest empty cell of that "
            "column. The first player with four discs in a line (horizontal, vertical or diagonal) "
            "wins. If the board fills up with no such line, the game is a draw. A move is the "
            "column number."
        )

    def render_state(self, state: pyspiel.State) -> str:
        symbols = {"x": self.marks[0], "o": self.marks[1], ".": "."}
        lines = [" ".join(symbols[c] for c in row) for row in board_rows(state)]
        lines.append(" ".join(str(c) for c in range(1, 8)))
        mover = state.current_player()
        if mover >= 0:
            lines.append(f"You are {self.marks[mover]}; it is your move.")
        return "\n".join(lines)

    def action_label(self, state: pyspiel.State, action: int) -> str:
        return str(action + 1)
