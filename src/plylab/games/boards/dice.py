"""Dice games drawn as their players know them: backgammon as a board of 24 points (gnubg's and
every club's picture, points numbered from the side to move, as its moves name them), Pig as the two
scores racing to the goal with the turn total at stake. Read from the engine (`board()` for the
checkers; the state's text for the dice, the bar and the scores), never from a game's action numbers.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from markupsafe import escape

from .base import CHOSEN, Marks, register_drawing, svg, title

if TYPE_CHECKING:
    import pyspiel

CHECKERS = (
    "#f6f8fa",
    "#24292f",
)  # OpenSpiel's x (seat 0) and o (seat 1): white and black, as gnubg draws them
POINT_COLOURS = ("#b08968", "#7f5539")
W, H, BAR, EDGE, R = (
    30,
    150,
    30,
    34,
    13,
)  # a point's width, a half's height, the bar, the side tray, a checker
STRIP = 16  # the point numbers' strips


def _count(text: str, pattern: str) -> list[int]:
    found = re.search(pattern, text)
    return [int(n) for n in re.findall(r"\d+", found.group(0))] if found else []


@register_drawing("backgammon")
def draw_backgammon(state: pyspiel.State, marks: Marks) -> str | None:
    """The 24 points (top: OpenSpiel's points 13 to 24 left to right, bottom: 12 to 1, as its text
    board lays them), each checker drawn up to five a point and a count beyond, the bar, the borne-off
    trays, the dice, and the play made (named as the mover's move text names it)."""
    text = str(state)
    off = _count(text, r"Scores, X: (\d+), O: (\d+)")
    dice = [int(c) for c in "".join(re.findall(r"Dice: (\d*)", text))]
    board = [[state.board(seat, p) for p in range(24)] for seat in (0, 1)]
    if len(off) != 2:
        return None
    bar = [15 - sum(board[s]) - off[s] for s in (0, 1)]
    mover = state.current_player()
    width, height = 12 * W + BAR + 2 * EDGE, 2 * H + 40
    body = [f'<rect x="0" y="0" width="{width}" height="{height}" rx="4" fill="#3d5a40"/>']
    body.append(f'<rect x="{EDGE}" y="0" width="{12 * W + BAR}" height="{height}" fill="#e9dcc4"/>')

    def column(p: int) -> tuple[float, bool]:
        """A point's left edge and whether it is on the top half."""
        top = p >= 12
        k = p - 12 if top else 11 - p
        return EDGE + k * W + (BAR if k >= 6 else 0), top

    coords: list[str] = []  # point numbers in strips above and below the board, outside the play
    number = (lambda p: 24 - p) if mover == 0 else (lambda p: p + 1)  # the mover's numbering
    for p in range(24):
        x, top = column(p)
        tip = 2 * H / 2.4
        y0, y1 = (0, tip) if top else (height, height - tip)
        body.append(
            f'<path class="point" d="M {x:.0f} {y0} L {x + W:.0f} {y0} L {x + W / 2:.0f} {y1:.0f} z" '
            f'fill="{POINT_COLOURS[p % 2]}"/>'
        )
        if mover in (0, 1):
            coords.append(
                f'<text class="coord" x="{x + W / 2:.0f}" y="{12 if top else height + STRIP + 12}" font-size="11" '
                f'text-anchor="middle" fill="#636c76">{number(p)}</text>'
            )
        for seat in (0, 1):
            n = board[seat][p]
            for k in range(min(n, 5)):
                cy: float = (R + 14 + 2 * R * k) if top else (height - R - 14 - 2 * R * k)
                body.append(_checker(x + W / 2, cy, seat))
            if n > 5:
                cy = (R + 14 + 2 * R * 4) if top else (height - R - 14 - 2 * R * 4)
                body.append(
                    f'<text x="{x + W / 2:.0f}" y="{cy + 4:.0f}" font-size="11" text-anchor="middle" '
                    f'fill="{CHECKERS[1 - seat]}" font-weight="700">{n}</text>'
                )
    mid = EDGE + 6 * W
    body.append(f'<rect class="bar" x="{mid}" y="0" width="{BAR}" height="{height}" fill="#5c4033"/>')
    for seat in (0, 1):
        if bar[seat]:
            cy = height / 2 + (-R - 4 if seat == 0 else R + 4)
            body.append(_checker(mid + BAR / 2, cy, seat, f"{bar[seat]} on the bar"))
            body.append(_label(mid + BAR / 2, cy + 4, str(bar[seat]), CHECKERS[1 - seat]))
        if off[seat]:
            cy = height - 20.0 if seat == 0 else 20.0
            body.append(_label(width - EDGE / 2, cy, f"{off[seat]} off", "#ffffff"))
    for k, d in enumerate(dice):
        x = EDGE + 9 * W + BAR - 22 + 26 * k
        body.append(
            f'<g class="die"><rect x="{x}" y="{height / 2 - 11}" width="22" height="22" rx="4" fill="#ffffff" '
            f'stroke="#24292f"/>{_label(x + 11, height / 2 + 5, str(d), "#24292f")}</g>'
        )
    if mover in (0, 1):
        body.append(_checker(EDGE / 2, height / 2, mover, "to move"))
    if marks.chosen is not None and mover in (0, 1):
        played = re.sub(r"^\d+ - ", "", state.action_to_string(mover, marks.chosen))
        body.append(
            f'<text class="played" x="{EDGE + 3 * W}" y="{height / 2 + 5}" font-size="13" text-anchor="middle" '
            f'fill="{CHOSEN}" font-weight="700">{escape(played)}{title("the play made")}</text>'
        )
    drawn = f'<g transform="translate(0 {STRIP})">' + "".join(body) + "</g>"
    return svg(width, height + 2 * STRIP, [drawn, *coords], checkers=sum(board[0]) + sum(board[1]))


def _checker(x: float, y: float, seat: int, tip: str = "") -> str:
    return (
        f'<circle class="checker" cx="{x:.0f}" cy="{y:.0f}" r="{R}" fill="{CHECKERS[seat]}" stroke="#57606a" '
        f'stroke-width="1.2">{title(tip) if tip else ""}</circle>'
    )


def _label(x: float, y: float, text: str, colour: str) -> str:
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" font-size="12" text-anchor="middle" fill="{colour}" '
        f'font-weight="700">{escape(text)}</text>'
    )


PIG_SEATS = ("#0969da", "#bf3989")


@register_drawing("pig")
def draw_pig(state: pyspiel.State, marks: Marks) -> str | None:
    """Each player's score as a bar to the goal, the turn total at stake on the mover's bar."""
    text = str(state)
    scores = _count(text, r"Scores:([\d ]+)")
    total = _count(text, r"Turn total: (\d+)")
    goal = int(state.get_game().get_parameters().get("winscore", 100))
    if len(scores) != 2 or not total:
        return None
    mover = state.current_player()
    width, row, left = 420, 34, 80
    span = width - left - 20
    body = [f'<rect x="0" y="0" width="{width}" height="{2 * row + 40}" rx="6" fill="#f6f8fa"/>']
    for seat in (0, 1):
        y = 10 + seat * row
        have = min(scores[seat], goal) / goal * span
        body.append(
            f'<text x="8" y="{y + 17}" font-size="12" fill="#24292f">Player {seat + 1}{" ▶" if seat == mover else ""}</text>'
            f'<rect x="{left}" y="{y}" width="{span}" height="22" fill="#ffffff" stroke="#d0d7de"/>'
            f'<rect class="score" x="{left}" y="{y}" width="{have:.1f}" height="22" fill="{PIG_SEATS[seat]}">'
            f"{title(f'score {scores[seat]} of {goal}')}</rect>"
            f'<text x="{left + 6}" y="{y + 16}" font-size="12" fill="#ffffff" font-weight="700">{scores[seat]}</text>'
        )
        if seat == mover and total[0]:
            stake = min(total[0], goal - min(scores[seat], goal)) / goal * span
            body.append(
                f'<rect class="turn" x="{left + have:.1f}" y="{y}" width="{stake:.1f}" height="22" '
                f'fill="{PIG_SEATS[seat]}" fill-opacity=".35">{title(f"turn total {total[0]} at stake")}</rect>'
            )
    body.append(
        f'<text x="8" y="{2 * row + 28}" font-size="12" fill="#57606a">goal {goal} · turn total {total[0]}'
        + (
            f' · played: <tspan fill="{CHOSEN}" font-weight="700">{escape(state.action_to_string(mover, marks.chosen))}</tspan>'
            if marks.chosen is not None and mover in (0, 1)
            else ""
        )
        + "</text>"
    )
    return svg(width, 2 * row + 40, body)
