"""Tic-tac-toe (OpenSpiel `tic_tac_toe`): a draw under optimal play; 5,478 reachable states.

Formulations: `standard`, and the paper's obfuscations (section 3.4) `hidden`, `magic_square`,
`magic_square_plus5` and `story`. Each is a bijection over the engine's nine cell actions; the
number games are tic-tac-toe through the 3x3 magic square, whose eight lines are exactly the eight
triples of distinct numbers 1..9 summing to 15.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import ClassVar

import pyspiel
from pydantic import Field

from ..errors import UserError
from ..oracles.minimax import MinimaxTable
from ..specs import Params
from .base import GameDef, GroundTruth, register_game
from .surface import FixedLabels, turn_line

COLS = "ABC"
# Cell (engine action, row-major) -> number. Every row, column and diagonal sums to 15.
MAGIC = (2, 7, 6, 9, 5, 1, 4, 3, 8)
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
# The eight symmetries of the square (identity, rotations by 90/180/270, the four reflections) as
# maps of a cell's (row, column); each maps lines to lines, so any of them keeps the bijection.
SYMMETRIES = (
    lambda r, c: (r, c),
    lambda r, c: (c, 2 - r),
    lambda r, c: (2 - r, 2 - c),
    lambda r, c: (2 - c, r),
    lambda r, c: (r, 2 - c),
    lambda r, c: (2 - r, c),
    lambda r, c: (c, r),
    lambda r, c: (2 - c, 2 - r),
)


def magic_numbers(symmetry: int = 0, shift: int = 0) -> tuple[int, ...]:
    """Cell (engine action) -> number under one of the eight Lo Shu arrangements, plus `shift`."""
    moved = (SYMMETRIES[symmetry](a // 3, a % 3) for a in range(9))
    return tuple(MAGIC[3 * r + c] + shift for r, c in moved)


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
        recognition=(
            r"\bti(?:c|ck|k)[\s-]*ta(?:c|ck|k)[\s-]*toe\b",  # tic-tac-toe, tictactoe, tick-tack-toe
            r"\bn[ao]ughts\s*(?:and|&|n)\s*crosses\b",
            r"(?-i:\bTTT\b)",  # the abbreviation, capitals only
        ),
        recognition_wide=(
            r"\b(?-i:X)(?:'?s)?\s*(?:and|&|/)\s*(?-i:O)(?:'?s)?\b",  # X and O, Xs & Os (capitals only)
            r"\btris\b",  # Italian
            r"\bmorpion\b",  # French
            r"\btres\s+en\s+(?:raya|l[ií]nea)\b",  # Spanish
            r"\bta[\s-]?te[\s-]?ti\b",  # Argentine Spanish
        ),
        ground_truth=GroundTruth(
            "exact", "minimax table", lambda game: MinimaxTable.load_or_build(game.engine, "tic_tac_toe")
        ),
        parse_moves=_parse_moves,
        move_name=lambda game, action: cell_name(action),
    )
)


def _only_match(pattern: str, text: str) -> re.Match[str] | None:
    """The match of `pattern` in `text` when all its matches agree, else None (ambiguous or absent)."""
    found = list(re.finditer(pattern, text, re.IGNORECASE))
    if found and len({m.group(0).lower().replace(" ", "") for m in found}) == 1:
        return found[0]
    return None


class Grid(FixedLabels):
    """A 3x3 board of marks; subclasses choose the marks, the coordinates and the wording."""

    marks: ClassVar[tuple[str, str]]
    col_names: ClassVar[tuple[str, str, str]]
    row_names: ClassVar[tuple[str, str, str]]
    cell_pattern: ClassVar[str]  # lenient reply form: groups 'col' and 'row' as 1-3 or names

    def seat_name(self, seat: int) -> str:
        return self.marks[seat]

    def cell_label(self, row: int, col: int) -> str:
        return f"{self.col_names[col]}{self.row_names[row]}"

    def label(self, action: int) -> str:
        return self.cell_label(action // 3, action % 3)

    def render_state(self, state: pyspiel.State) -> str:
        symbols = {"x": self.marks[0], "o": self.marks[1], ".": "."}
        cells = [symbols[c] for c in board_cells(state)]
        width = max(map(len, self.col_names + self.row_names))
        pad = " " * (width + 1)
        lines = [pad + " ".join(c.ljust(width) for c in self.col_names).rstrip()]
        for r in range(3):
            row = " ".join(c.ljust(width) for c in cells[3 * r : 3 * r + 3])
            lines.append(f"{self.row_names[r].ljust(width)} {row}".rstrip())
        lines.append(turn_line(self, state))
        return "\n".join(lines)

    def canonical(self, text: str) -> str:
        m = _only_match(self.cell_pattern, text)
        if m is None:
            return text
        col, names = m["col"].lower(), [c.lower() for c in self.col_names]
        return self.cell_label(int(m["row"]) - 1, int(col) - 1 if col.isdigit() else names.index(col))


@GAME.add_formulation
class Standard(Grid):
    name = "standard"
    marks = ("X", "O")
    col_names = ("A", "B", "C")
    row_names = ("1", "2", "3")
    cell_pattern = r"\b(?P<col>[abc])\s*(?P<row>[123])\b"

    def rules(self) -> str:
        x, o = self.marks
        return (
            "We are playing tic-tac-toe on a 3x3 grid. Columns are A, B, C (left to right) and rows "
            f"are 1, 2, 3 (top to bottom), so each cell is named like B2. Players {x} and {o} take "
            f"turns; {x} moves first. On your turn you place your mark in one empty cell. The first "
            "player with three marks in a row, column or diagonal wins. If all nine cells are "
            "filled with no such line, the game is a draw."
        )


@GAME.add_formulation
class Hidden(Grid):
    """The paper's Hid: same board and rules, markers B and W, the game's name never said."""

    name = "hidden"
    marks = ("B", "W")

    def title(self) -> str:
        return "Markers on a 3x3 board"

    # Numbered coordinates: lettered columns would clash with marker B.
    col_names = ("c1", "c2", "c3")
    row_names = ("r1", "r2", "r3")
    cell_pattern = r"\br(?:ow)?\s*(?P<row>[123])\W*c(?:ol(?:umn)?)?\s*(?P<col>[123])\b"

    def cell_label(self, row: int, col: int) -> str:
        return f"{self.row_names[row]}{self.col_names[col]}"

    def rules(self) -> str:
        b, w = self.marks
        return (
            f"Two players, {b} and {w}, play on a board of 3x3 cells. Rows are r1, r2, r3 (top to bottom) "
            "and columns are c1, c2, c3 (left to right); a cell is named by its row and then its "
            f"column, so r2c3 is the middle row, right column. {b} moves first, then the players "
            "alternate. On your turn you put your marker in one empty cell; markers never move. The "
            "first player to have three markers in a straight line (a whole row, a whole column, or "
            "one of the two diagonals) wins at once. If all nine cells are filled and nobody has "
            "such a line, the game is a draw."
        )


class NumberClaim(FixedLabels):
    """The magic-square family: players claim numbers; three of yours summing to `target` wins.

    Cell a is number MAGIC[a] + offset (under the formulation's symmetry of the Lo Shu square),
    so a line of the board is exactly a winning triple.
    """

    offset: ClassVar[int] = 0
    noun: ClassVar[str] = "numbers"  # what is claimed, as the state names it

    @property
    def shift(self) -> int:
        return int(getattr(self.options, "shift", self.offset))

    @cached_property
    def table(self) -> tuple[int, ...]:
        return magic_numbers(int(getattr(self.options, "symmetry", 0)), self.shift)

    @property
    def target(self) -> int:
        return 15 + 3 * self.shift

    def number(self, action: int) -> int:
        return self.table[action]

    @property
    def numbers(self) -> list[int]:
        return sorted(self.number(a) for a in range(9))

    def label(self, action: int) -> str:
        return str(self.number(action))

    def title(self) -> str:
        return f"{self.noun.capitalize()} adding up to {self.target}"

    def held(self, state: pyspiel.State) -> dict[str, list[int]]:
        """Claimed numbers by owner ('x', 'o') and the free ones ('.'), each sorted."""
        out: dict[str, list[int]] = {"x": [], "o": [], ".": []}
        for a, c in enumerate(board_cells(state)):
            out[c].append(self.number(a))
        return {k: sorted(v) for k, v in out.items()}

    def render_state(self, state: pyspiel.State) -> str:
        held = self.held(state)

        def show(nums: list[int]) -> str:
            return ", ".join(map(str, nums)) or "none"

        lines = [p] if (p := self.preamble()) else []
        lines += [
            f"{self.noun.capitalize()} claimed by {self.seat_name(s)}: {show(held[k])}"
            for s, k in enumerate("xo")
        ]
        lines += [f"{self.noun.capitalize()} still free: {show(held['.'])}", turn_line(self, state)]
        return "\n".join(lines)

    def preamble(self) -> str:
        """An opening line for the position (the story's river); none by default."""
        return ""

    def canonical(self, text: str) -> str:
        m = _only_match(r"(?<![\w-])-?\d+\b", text)
        return m.group(0) if m else text


class MagicOptions(Params):
    """Generated instances (the papers' code): one of the 8 Lo Shu symmetries, any additive shift."""

    symmetry: int = Field(0, ge=0, le=7)
    shift: int = Field(0, ge=-(10**6), le=10**6)


class Plus5Options(MagicOptions):
    shift: int = Field(5, ge=-(10**6), le=10**6)


@GAME.add_formulation
class MagicSquare(NumberClaim):
    """The paper's M.Sq: claim numbers 1..9; three of yours summing to 15 win.

    `magic_square:symmetry=S,shift=K` is the generated instance: numbers 1+K..9+K, triples summing
    to 15+3K, placed by symmetry S (0-7) of the Lo Shu square."""

    name = "magic_square"
    Options = MagicOptions

    def rules(self) -> str:
        lo, hi = self.numbers[0], self.numbers[-1]
        return (
            f"Two players, Player 1 and Player 2, share the numbers {lo} to {hi}; at the start none "
            "is taken. Player 1 moves first, then the players alternate. On your turn you claim one "
            "number that nobody has claimed yet; it is yours for the rest of the game. As soon as a "
            f"player holds three different numbers that add up to exactly {self.target} (any three of "
            "the numbers they have claimed, not necessarily the last ones), that player wins. If all "
            f"nine numbers are claimed and neither player holds three numbers adding up to "
            f"{self.target}, the game is a draw. A move is the number you claim, for example {lo + 3}."
        )


@GAME.add_formulation
class MagicSquarePlus5(MagicSquare):
    """The paper's M.Sq +5: numbers 6..14, triples summing to 30, hiding the familiar 15."""

    name = "magic_square_plus5"
    Options = Plus5Options
    offset = 5


@GAME.add_formulation
class Story(NumberClaim):
    """The paper's Story: claim jump lengths 1..9 to cross a 15-wide river in exactly three jumps."""

    name = "story"
    noun = "jump lengths"

    def preamble(self) -> str:
        return f"The river is {self.target} wide."

    def title(self) -> str:
        return "The river crossing"

    def rules(self) -> str:
        return (
            f"Two jumpers, Player 1 and Player 2, race to cross a river that is exactly {self.target} "
            "wide, each in exactly three jumps. The jump lengths 1, 2, 3, 4, 5, 6, 7, 8 and 9 are on "
            "offer, and each length can belong to only one jumper. Player 1 chooses first, then the "
            "players alternate. On your turn you claim one jump length that nobody has claimed yet. A "
            f"jumper who owns three lengths that add up to exactly {self.target} (any three of the "
            "lengths they own) crosses the river, landing exactly on the far bank without falling "
            "short or overshooting, and wins at once. If all nine lengths are claimed and neither "
            "jumper owns three lengths that make an exact crossing, the race is a draw. A move is "
            "the jump length you claim, for example 4."
        )
