"""Dots and boxes: dots, the lines drawn so far, the boxes each player closed.

The engine's text is a grid of box-drawing characters, four columns and two lines per box: a
horizontal line is drawn where `───` joins two corners, a vertical one where `│` stands, and a
closed box holds its owner's number. A move is named `P1(h,row,col)` or `P1(v,row,col)`, so a legal
move is drawn as the missing line it would add, coloured by its exact value.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .base import (
    CHOSEN,
    LAST,
    VALUE_COLOURS,
    Marks,
    marked_actions,
    register_drawing,
    svg,
    title,
    value_title,
)

if TYPE_CHECKING:
    import pyspiel

STEP, PAD = 56, 14
OWNER = {"1": "#ddf4ff", "2": "#ffebe9"}
MOVE = re.compile(r"\((h|v),(\d+),(\d+)\)")


def _line(kind: str, r: int, c: int) -> tuple[float, float, float, float]:
    x, y = PAD + c * STEP, PAD + r * STEP
    return (x, y, x + STEP, y) if kind == "h" else (x, y, x, y + STEP)


@register_drawing("dots_and_boxes")
def draw_dots(state: pyspiel.State, marks: Marks) -> str | None:
    params = state.get_game().get_parameters()
    rows, cols = int(params.get("num_rows", 2)), int(params.get("num_cols", 2))
    text = str(state).split("\n")
    if len(text) < 2 * rows + 1:
        return None
    body = [
        f'<rect x="0" y="0" width="{cols * STEP + 2 * PAD}" height="{rows * STEP + 2 * PAD}" rx="6" fill="#f6f8fa"/>'
    ]
    for r in range(rows):
        for c in range(cols):
            owner = text[2 * r + 1][4 * c + 2 : 4 * c + 3]
            if owner in OWNER:
                x, y = PAD + c * STEP, PAD + r * STEP
                body.append(
                    f'<g class="box"><rect x="{x}" y="{y}" width="{STEP}" height="{STEP}" fill="{OWNER[owner]}"/>'
                    f'<text x="{x + STEP / 2}" y="{y + STEP / 2 + 6}" text-anchor="middle" font-size="16">P{owner}</text></g>'
                )
    drawn = 0
    for r in range(rows + 1):
        for c in range(cols):
            if text[2 * r][4 * c + 1 : 4 * c + 4] == "───":
                drawn += 1
                x1, y1, x2, y2 = _line("h", r, c)
                body.append(
                    f'<line class="piece" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#24292f" stroke-width="4"/>'
                )
    for r in range(rows):
        for c in range(cols + 1):
            if text[2 * r + 1][4 * c : 4 * c + 1] == "│":
                drawn += 1
                x1, y1, x2, y2 = _line("v", r, c)
                body.append(
                    f'<line class="piece" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#24292f" stroke-width="4"/>'
                )
    player = max(state.current_player(), 0)
    for action in marked_actions(marks):
        m = MOVE.search(state.action_to_string(player, action))
        if not m:
            continue
        x1, y1, x2, y2 = _line(m[1], int(m[2]), int(m[3]))
        colour = VALUE_COLOURS.get(marks.values.get(action, ""), "#8c959f")
        chosen = action == marks.chosen
        body.append(
            f'<g class="legal{" chosen" if chosen else ""}" data-action="{action}" data-value="{marks.values.get(action, "")}">'
            f"{title(value_title(marks, action))}"
            f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{CHOSEN if chosen else colour}" '
            f'stroke-width="{5 if chosen else 3}" stroke-dasharray="{"none" if chosen else "6 4"}"/></g>'
        )
    if marks.last is not None and marks.before is not None:
        m = MOVE.search(marks.before.action_to_string(max(marks.before.current_player(), 0), marks.last))
        if m:
            x1, y1, x2, y2 = _line(m[1], int(m[2]), int(m[3]))
            body.append(
                f'<line class="last" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{LAST}" stroke-width="6" '
                f'stroke-opacity=".6">{title("last move")}</line>'
            )
    body += [
        f'<circle cx="{PAD + c * STEP}" cy="{PAD + r * STEP}" r="4" fill="#24292f"/>'
        for r in range(rows + 1)
        for c in range(cols + 1)
    ]
    return svg(cols * STEP + 2 * PAD, rows * STEP + 2 * PAD, body, cells=rows * cols, pieces=drawn)
