"""Hex as hexagons: the engine's rhombus of cells, each row shifted half a cell to the right.

Black (x, first to move) joins the top and bottom edges, White (o) the left and right edges; the
edges carry their owner's colour. Cells are read and moves located as on the square boards.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .base import LAST, Marks, attr, register_drawing, title
from .grid import BLACK, WHITE, Cell, Square, Style, draw_grid

if TYPE_CHECKING:
    import pyspiel

HEX = Style(
    ".",
    {"x": BLACK, "X": BLACK, "y": BLACK, "z": BLACK, "o": WHITE, "O": WHITE, "p": WHITE, "q": WHITE},
    board="#ffffff",
    size=40,
)


class Hexagons(Square):
    """Pointy-top hexagons of circumradius size/sqrt(3), so neighbours in a row touch."""

    pad = 14

    def __init__(self, rows: int, cols: int, style: Style) -> None:
        super().__init__(rows, cols, style)
        self.radius = self.size / math.sqrt(3)
        self.width = (cols + (rows - 1) / 2) * self.size + 2 * self.pad
        self.height = (1.5 * (rows - 1) + 2) * self.radius + 2 * self.pad

    def centre(self, cell: Cell) -> tuple[float, float]:
        r, c = cell
        return self.pad + (c + r / 2 + 0.5) * self.size, self.pad + self.radius * (1 + 1.5 * r)

    def _points(self, cell: Cell, radius: float) -> str:
        x, y = self.centre(cell)
        return " ".join(
            f"{x + radius * math.cos(math.radians(60 * k - 30)):.1f},{y + radius * math.sin(math.radians(60 * k - 30)):.1f}"
            for k in range(6)
        )

    def background(self) -> str:
        w, h = self.width, self.height
        # the edges each side owns: black top and bottom, white (drawn grey) left and right
        return (
            f'<rect x="0" y="0" width="{w:.0f}" height="{h:.0f}" fill="#ffffff"/>'
            f'<rect x="0" y="0" width="{w:.0f}" height="6" fill="{BLACK}"/>'
            f'<rect x="0" y="{h - 6:.0f}" width="{w:.0f}" height="6" fill="{BLACK}"/>'
            f'<rect x="0" y="0" width="6" height="{h:.0f}" fill="#afb8c1"/>'
            f'<rect x="{w - 6:.0f}" y="0" width="6" height="{h:.0f}" fill="#afb8c1"/>'
        )

    def cell(self, cell: Cell, **attrs: str) -> str:
        extra = "".join(attr(k, v) for k, v in attrs.items() if k != "fill")
        return f'<polygon points="{self._points(cell, self.radius)}" fill="#eaddc8"{extra}/>'

    def outline(self, cell: Cell) -> str:
        return (
            f'<polygon class="last" points="{self._points(cell, self.radius - 3)}" fill="none" stroke="{LAST}" '
            f'stroke-width="3">{title("last move")}</polygon>'
        )


@register_drawing("hex")
def draw_hex(state: pyspiel.State, marks: Marks) -> str | None:
    return draw_grid(state, marks, HEX, Hexagons)
