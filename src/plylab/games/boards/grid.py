"""Square boards, read from the engine's own text: placement games (tic-tac-toe, mnk, Connect
Four, Othello, Go) and moving games (Breakthrough, Clobber).

The board is the engine's `str(state)`: its rows are the lines made only of the game's cell
characters (rank numbers at either end and spaces removed). Where a move lands is found the same
way for every game, by playing it on a copy and seeing which cells change, so no drawing has to
know a game's action numbering (Connect Four's columns, Go's points from the bottom row).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from markupsafe import escape

from .base import (
    CHOSEN,
    LAST,
    VALUE_COLOURS,
    Drawing,
    Marks,
    attr,
    marked_actions,
    register_drawing,
    svg,
    title,
    value_title,
)

if TYPE_CHECKING:
    import pyspiel

Cell = tuple[int, int]


@dataclass(frozen=True)
class Style:
    empty: str  # characters of an empty cell
    pieces: dict[str, str]  # character -> look: x, o (tic-tac-toe marks) or a disc colour
    board: str = "#f6f8fa"
    size: int = 44
    holes: bool = False  # Connect Four: round holes in a blue frame
    moves: bool = False  # pieces move from a cell to a cell (Breakthrough, Clobber)
    text: Callable[[pyspiel.State], str] = str  # the engine's text of a position (chess: its FEN, unfolded)
    ranks: str = r"^\s*\d+\s?|\s?\d+\s*$"  # rank numbers around a row, removed before reading it
    # coordinates drawn around the board, as the game's moves name them: column names (above the
    # board, or below it with `files_below`) and row names (left of it, row 0 first)
    files: tuple[str, ...] = ()
    rows: tuple[str, ...] = ()
    files_below: bool = False


BLACK, WHITE = "#24292f", "#ffffff"
# One colour per seat, the same on the board and on the value line (reports/valueline.py).
MARK_COLOURS = ("#0969da", "#bf3989")  # tic-tac-toe's X and O
DISC_COLOURS = ("#cf222e", "#d4a72c")  # Connect Four's first and second player
SEAT_COLOURS = {"tic_tac_toe": MARK_COLOURS, "mnk": MARK_COLOURS, "connect_four": DISC_COLOURS}
STYLES = {
    # tic-tac-toe's cells are named A1 (top left) to C3, as its moves are
    "tic_tac_toe": Style(".", {"x": "x", "o": "o"}, size=64, files=("A", "B", "C"), rows=("1", "2", "3")),
    "mnk": Style(".", {"x": "x", "o": "o"}, size=56),
    "connect_four": Style(
        ".",
        {"x": DISC_COLOURS[0], "o": DISC_COLOURS[1]},
        board="#0969da",
        holes=True,
        files=tuple(str(c) for c in range(1, 8)),  # a move is a column's number
        files_below=True,
    ),
    "othello": Style("-", {"x": BLACK, "o": WHITE}, board="#2da44e"),
    "breakthrough": Style(".", {"b": BLACK, "w": WHITE}, board="#eaddc8", moves=True),
    "clobber": Style(".", {"x": BLACK, "o": WHITE}, board="#eaddc8", moves=True),
    # OpenSpiel's checkers: o white, + black, 8 and * their kings
    "checkers": Style(
        ".",
        {"o": WHITE, "+": BLACK, "8": "king:" + WHITE, "*": "king:" + BLACK},
        board="#eaddc8",
        moves=True,
        ranks=r"^\d",  # one digit: a king is an 8 too
    ),
    "lines_of_action": Style(".", {"x": BLACK, "o": WHITE}, board="#eaddc8", moves=True),
}

GLYPHS = dict(zip("KQRBNPkqrbnp", "♔♕♖♗♘♙♚♛♜♝♞♟"))


def fen_rows(state: pyspiel.State) -> str:
    """A chess position (its FEN) as eight lines of one character per square, '.' for empty."""
    board = str(state).split()[0]
    return "\n".join(re.sub(r"\d", lambda m: "." * int(m[0]), rank) for rank in board.split("/"))


STYLES["chess"] = Style(
    ".", {k: "glyph:" + g for k, g in GLYPHS.items()}, board="#f0d9b5", moves=True, text=fen_rows
)


def rows_of(text: str, style: Style) -> list[str]:
    """The board's rows, top first, one character per cell."""
    chars = set(style.empty) | set(style.pieces)
    found = []
    for line in text.split("\n"):
        core = re.sub(style.ranks, "", line).replace(" ", "")
        if len(core) >= 2 and set(core) <= chars:
            found.append(core)
    if not found:
        return []
    width = Counter(len(r) for r in found).most_common(1)[0][0]
    return [r for r in found if len(r) == width]


def _changes(before: list[str], after: list[str], style: Style) -> tuple[Cell | None, Cell | None]:
    """(cell left, cell reached) by a move; a placement leaves no cell (Go's captures and Othello's
    flips change other cells too: the cell reached is the one that was empty)."""
    left = filled = taken = None
    for r, (b_row, a_row) in enumerate(zip(before, after)):
        for c, (b, a) in enumerate(zip(b_row, a_row)):
            if b == a:
                continue
            if a in style.empty:
                left = (r, c)
            elif b in style.empty:
                filled = (r, c)
            else:
                taken = (r, c)  # a capture by moving onto the piece
    if not style.moves:
        return None, filled
    return left, filled if filled is not None else taken


def _move(
    state: pyspiel.State, action: int, before: list[str], style: Style
) -> tuple[Cell | None, Cell | None]:
    child = state.clone()
    child.apply_action(action)
    return _changes(before, rows_of(style.text(child), style), style)


class Square:
    """Square cells, row 0 at the top."""

    pad = 6

    def __init__(self, rows: int, cols: int, style: Style) -> None:
        self.rows, self.cols, self.style, self.size = rows, cols, style, style.size
        self.width: float = cols * self.size + 2 * self.pad
        self.height: float = rows * self.size + 2 * self.pad

    def centre(self, cell: Cell) -> tuple[float, float]:
        return self.pad + cell[1] * self.size + self.size / 2, self.pad + cell[0] * self.size + self.size / 2

    def background(self) -> str:
        return f'<rect x="0" y="0" width="{self.width}" height="{self.height}" rx="6" fill="{self.style.board}"/>'

    def cell(self, cell: Cell, **attrs: str) -> str:
        x, y = self.centre(cell)
        extra = "".join(attr(k, v) for k, v in attrs.items())
        if self.style.holes:
            return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{self.size * 0.4:.1f}"{extra}/>'
        h = self.size / 2
        return f'<rect x="{x - h:.1f}" y="{y - h:.1f}" width="{self.size}" height="{self.size}"{extra}/>'

    def outline(self, cell: Cell) -> str:
        """The last-move frame around a cell."""
        x, y = self.centre(cell)
        h = self.size / 2 - 2
        return (
            f'<rect class="last" x="{x - h:.1f}" y="{y - h:.1f}" width="{2 * h:.1f}" height="{2 * h:.1f}" rx="4" '
            f'fill="none" stroke="{LAST}" stroke-width="3">{title("last move")}</rect>'
        )


def _piece(look: str, x: float, y: float, size: int) -> str:
    r = size * 0.36
    if look.startswith("glyph:"):
        return (
            f'<text class="piece" x="{x:.1f}" y="{y + size * 0.3:.1f}" font-size="{size * 0.8:.0f}" '
            f'text-anchor="middle" fill="#24292f">{look[6:]}</text>'
        )
    if look.startswith("king:"):
        return (
            f'<g class="piece"><circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{look[5:]}" stroke="#24292f" '
            f'stroke-width="1.2"/><text x="{x:.1f}" y="{y + size * 0.1:.1f}" font-size="{size * 0.3:.0f}" '
            f'text-anchor="middle" fill="#bf8700">♔</text></g>'
        )
    if look == "x":
        d = size * 0.26
        return (
            f'<g class="piece" stroke="{MARK_COLOURS[0]}" stroke-width="{size * 0.09:.1f}" stroke-linecap="round">'
            f'<line x1="{x - d:.1f}" y1="{y - d:.1f}" x2="{x + d:.1f}" y2="{y + d:.1f}"/>'
            f'<line x1="{x - d:.1f}" y1="{y + d:.1f}" x2="{x + d:.1f}" y2="{y - d:.1f}"/></g>'
        )
    if look == "o":
        return (
            f'<circle class="piece" cx="{x:.1f}" cy="{y:.1f}" r="{size * 0.27:.1f}" fill="none" '
            f'stroke="{MARK_COLOURS[1]}" stroke-width="{size * 0.09:.1f}"/>'
        )
    return f'<circle class="piece" cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{look}" stroke="#24292f" stroke-width="1.2"/>'


def draw_grid(
    state: pyspiel.State, marks: Marks, style: Style, geometry: type[Square] = Square
) -> str | None:
    rows = rows_of(style.text(state), style)
    if not rows:
        return None
    g = geometry(len(rows), len(rows[0]), style)
    size = g.size
    body = [g.background()]
    cells = [(r, c) for r in range(g.rows) for c in range(g.cols)]
    fill = "#ffffff" if style.holes else "none"
    body += [g.cell(cell, fill=fill, stroke="#57606a", stroke_width="1", class_="cell") for cell in cells]
    # legal moves, coloured by their exact value for the mover; a move that changes no cell (a pass)
    # is a chip under the board
    chips = []
    for action in marked_actions(marks):
        left, reached = _move(state, action, rows, style)
        colour = VALUE_COLOURS.get(marks.values.get(action, ""), "#8c959f")
        chosen = action == marks.chosen
        tip = title(value_title(marks, action))
        attrs = f'class="legal{" chosen" if chosen else ""}" data-action="{action}" data-value="{marks.values.get(action, "")}"'
        if reached is None:
            chips.append((attrs, tip, colour, chosen, state.action_to_string(state.current_player(), action)))
            continue
        x, y = g.centre(reached)
        if left is None:
            score = marks.scores.get(action)
            body.append(
                f"<g {attrs}>{tip}"
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{size * 0.2:.1f}" fill="{colour}" fill-opacity=".8"/>'
                + (
                    f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{size * 0.34:.1f}" fill="none" stroke="{CHOSEN}" stroke-width="3"/>'
                    if chosen
                    else ""
                )
                + (
                    f'<text x="{x:.1f}" y="{y + size * 0.07:.1f}" font-size="{size * 0.2:.0f}" text-anchor="middle" '
                    f'fill="#ffffff" font-weight="700">{score}</text>'
                    if score is not None
                    else ""
                )
                + "</g>"
            )
        else:
            x0, y0 = g.centre(left)
            body.append(
                f"<g {attrs}>{tip}"
                f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x:.1f}" y2="{y:.1f}" stroke="{colour}" '
                f'stroke-width="{5 if chosen else 3}" stroke-opacity="{1 if chosen else 0.7}" marker-end="url(#tip)"/></g>'
            )
    pieces = 0
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch in style.pieces:
                pieces += 1
                body.append(_piece(style.pieces[ch], *g.centre((r, c)), size))
    if marks.last is not None and marks.before is not None:
        _, reached = _move(marks.before, marks.last, rows_of(style.text(marks.before), style), style)
        if reached is not None:
            body.append(g.outline(reached))
    height = g.height
    for k, (attrs, tip, colour, chosen, label) in enumerate(chips):
        x, y = 8 + k * 76, g.height + 4
        body.append(
            f'<g {attrs}>{tip}<rect x="{x}" y="{y}" width="70" height="20" rx="10" fill="{colour}"'
            + (f' stroke="{CHOSEN}" stroke-width="3"' if chosen else "")
            + f'/><text x="{x + 35}" y="{y + 14}" font-size="11" text-anchor="middle" fill="#ffffff">'
            f"{escape(label[:10])}</text></g>"
        )
        height = g.height + 28
    defs = (
        '<defs><marker id="tip" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="4" markerHeight="4" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="context-stroke"/></marker></defs>'
    )
    margin_left: float = COORD if style.rows else 0
    margin_top: float = COORD if style.files and not style.files_below else 0
    coords = _coordinates(g, style, margin_left, margin_top, height)
    width = g.width + margin_left
    height += margin_top + (COORD if style.files_below else 0)
    drawn = "".join(body)
    shifted = (
        f'<g transform="translate({margin_left:g} {margin_top:g})">{drawn}</g>'
        if margin_left or margin_top
        else drawn
    )
    return svg(width, height, [defs, shifted, *coords], cells=len(cells), pieces=pieces)


COORD = 18  # room for a line of coordinates


def _coordinates(g: Square, style: Style, left: float, top: float, height: float) -> list[str]:
    """The column and row names around the board, in the muted ink of the site's text."""
    out = []
    font = 'font-size="12" fill="#636c76" text-anchor="middle" class="coord"'
    y = top + height + 13 if style.files_below else 13
    for c, name in enumerate(style.files[: g.cols]):
        x, _ = g.centre((0, c))
        out.append(f'<text x="{left + x:.1f}" y="{y:.1f}" {font}>{escape(name)}</text>')
    for r, name in enumerate(style.rows[: g.rows]):
        _, yy = g.centre((r, 0))
        out.append(f'<text x="{COORD / 2:.1f}" y="{top + yy + 4:.1f}" {font}>{escape(name)}</text>')
    return out


class Intersections(Square):
    """A Go board: stones on the lines' crossings, the lines stopping at the edge, the star points
    (hoshi) where a Go board has them; the cells stay the engine's points, so marks land on them."""

    def background(self) -> str:
        first, last = self.centre((0, 0)), self.centre((self.rows - 1, self.cols - 1))
        lines = [
            f'<rect x="0" y="0" width="{self.width}" height="{self.height}" rx="4" fill="{self.style.board}"/>'
        ]
        for r in range(self.rows):
            _, y = self.centre((r, 0))
            lines.append(
                f'<line class="grid" x1="{first[0]:.1f}" x2="{last[0]:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="#3b2f1e"/>'
            )
        for c in range(self.cols):
            x, _ = self.centre((0, c))
            lines.append(
                f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="{first[1]:.1f}" y2="{last[1]:.1f}" stroke="#3b2f1e"/>'
            )
        for cell in _star_points(self.rows, self.cols):
            x, y = self.centre(cell)
            lines.append(f'<circle class="hoshi" cx="{x:.1f}" cy="{y:.1f}" r="3" fill="#3b2f1e"/>')
        return "".join(lines)

    def cell(self, cell: Cell, **attrs: str) -> str:
        return ""  # a point is where two lines cross: nothing of its own to draw

    def outline(self, cell: Cell) -> str:
        """The last move: a ring on its stone, as Go programs mark it."""
        x, y = self.centre(cell)
        return (
            f'<circle class="last" cx="{x:.1f}" cy="{y:.1f}" r="{self.size * 0.16:.1f}" fill="none" '
            f'stroke="{LAST}" stroke-width="3">{title("last move")}</circle>'
        )


def _star_points(rows: int, cols: int) -> list[Cell]:
    """The hoshi of a square Go board: 3-3 points on 9x9 and smaller boards' centres, 4-4 from 13x13."""
    if rows != cols or rows < 7:
        return []
    edge = 2 if rows < 13 else 3
    far = rows - 1 - edge
    mid = rows // 2
    corners = [(edge, edge), (edge, far), (far, edge), (far, far)]
    sides = [(edge, mid), (mid, edge), (mid, far), (far, mid)] if rows >= 19 else []
    return [*corners, *sides, (mid, mid)] if rows % 2 else corners


GO = Style("+.", {"X": BLACK, "O": WHITE}, board="#dcb35c", size=36)
GO_FILES = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # as GNU Go and OpenSpiel name a column: no I


@register_drawing("go")
def draw_go(state: pyspiel.State, marks: Marks) -> str | None:
    """The Go board as a player knows it: files A-J (no I) over and rows numbered from the bottom beside."""
    rows = rows_of(GO.text(state), GO)
    if not rows:
        return None
    n, m = len(rows), len(rows[0])
    style = replace(GO, files=tuple(GO_FILES[:m]), rows=tuple(str(k) for k in range(n, 0, -1)))
    return draw_grid(state, marks, style, Intersections)


def _drawer(name: str) -> Drawing:
    style = STYLES[name]

    def draw(state: pyspiel.State, marks: Marks) -> str | None:
        return draw_grid(state, marks, style)

    draw.__name__ = f"draw_{name}"
    return draw


for _name in STYLES:
    register_drawing(_name)(_drawer(_name))
