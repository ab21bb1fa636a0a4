"""Nim as piles of sticks, one row per pile.

A legal move takes the last k sticks of a pile, so it is drawn as a coloured mark under the first
stick it would take (its exact value for the mover); the sticks the last move took are drawn
faded in their pile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..nim import decode, pile_sizes
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

GAP, STICK_W, STICK_H, ROW_H, LEFT = 18, 6, 34, 54, 74


@register_drawing("nim")
def draw_nim(state: pyspiel.State, marks: Marks) -> str | None:
    sizes = pile_sizes(state)
    piles = len(sizes)
    taken: dict[int, int] = {}
    if marks.last is not None:
        pile, k = decode(marks.last, piles)
        taken[pile] = k
    longest = max([s + taken.get(i, 0) for i, s in enumerate(sizes)] + [1])
    width, height = LEFT + longest * GAP + 20, piles * ROW_H + 10
    body = [f'<rect x="0" y="0" width="{width}" height="{height}" rx="6" fill="#f6f8fa"/>']
    sticks = 0
    for i, n in enumerate(sizes):
        y = 8 + i * ROW_H
        body.append(
            f'<text x="8" y="{y + STICK_H * 0.7:.0f}" font-size="14" fill="#636c76">pile {i + 1}</text>'
        )
        for j in range(n + taken.get(i, 0)):
            x = LEFT + j * GAP
            gone = j >= n
            sticks += not gone
            body.append(
                f'<rect class="{"taken" if gone else "piece"}" x="{x}" y="{y}" width="{STICK_W}" height="{STICK_H}" rx="2" '
                + (
                    f'fill="none" stroke="{LAST}" stroke-dasharray="3 2">{title("taken by the last move")}</rect>'
                    if gone
                    else 'fill="#8c5a2b"/>'
                )
            )
    for action in marked_actions(marks):
        pile, k = decode(action, piles)
        if pile >= piles or k > sizes[pile]:
            continue
        cx = LEFT + (sizes[pile] - k) * GAP + STICK_W / 2
        y = 8 + pile * ROW_H + STICK_H + 8
        colour = VALUE_COLOURS.get(marks.values.get(action, ""), "#8c959f")
        chosen = action == marks.chosen
        body.append(
            f'<g class="legal{" chosen" if chosen else ""}" data-action="{action}" data-value="{marks.values.get(action, "")}">'
            f"{title(f'take {k} from pile {pile + 1}: ' + value_title(marks, action))}"
            f'<circle cx="{cx:.1f}" cy="{y:.1f}" r="5" fill="{colour}"'
            + (f' stroke="{CHOSEN}" stroke-width="3"' if chosen else "")
            + "/></g>"
        )
    return svg(width, height, body, cells=piles, pieces=sticks)
