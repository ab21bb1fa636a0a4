"""The value line of a replay: the value of the position after every ply, drawn as SVG.

Each graded move carries the value of every legal move for its mover (its graded decision: an exact
game value, a win probability, an equity, a payoff against an equilibrium), so the value after ply i
is the value of the move played, turned to each seat's view; a forfeit is a loss
for the side that failed. Non-optimal moves and the failure get their own markers, and every point
names its step (data-step), so a click on the chart goes to that ply. Connect Four's exact score
(distance to the end) is written over its points.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from markupsafe import escape

if TYPE_CHECKING:
    from .payload import Step, TruthView

WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 720, 184, 64, 14, 30, 30
Y = {1: "win", 0: "draw", -1: "loss"}
SEAT_COLOURS = ("#0969da", "#bf3989")


class Point(TypedDict):
    """One step of the value line: the value (and exact score) after it, from seat 0's view."""

    step: int
    ply: int
    seat: int
    value: float | None
    score: float | None
    kind: str  # move | mistake | failure
    payoff: float | None


def _half_span(steps: list[Step]) -> float | None:
    """Half the utility range where the moves were graded in the game's payoff (an equilibrium's
    chips, gnubg's points); else None."""
    spans = [d["span"] for s in steps if (d := s["decision"]) and d["unit"] == "payoff" and d["span"]]
    return max(spans) / 2 if spans else None


def series(steps: list[Step]) -> list[Point]:
    """Per step: its ply, the value and score after it from seat 0's view, and what kind of move it was.

    The value is the played move's exact game value where the truth has one (win / draw / loss),
    else its value on the graded scale (oracles.graded.Decision) in [-1, 1] from seat 0's view: an
    expected score s as 2s - 1, a payoff scaled by half the utility range (`payoff` keeps it)."""
    out: list[Point] = []
    half = _half_span(steps)
    for i, s in enumerate(steps):
        flip = 1 if s["seat"] == 0 else -1
        value: float | None = None
        score: float | None = None
        payoff: float | None = None
        d = s["decision"]
        chosen = next((m for m in s["legal"] if m["action"] == s["action"]), None)
        if s["action"] is None:
            value = -flip  # a forfeit: the side that failed loses
            kind = "failure"
        else:
            if chosen is not None and (named := chosen["value"]) is not None:
                value = {"win": 1, "draw": 0, "loss": -1}[named] * flip
            elif d is not None and (v := d["value"]) is not None:
                if d["unit"] == "payoff" and half:
                    payoff = v * flip
                    value = payoff / half
                elif d["unit"] == "score":
                    value = (2 * v - 1) * flip
            if chosen is not None and (exact := chosen["score"]) is not None:
                score = exact * flip
            lost = d["lost"] if d is not None else bool(s["informative"]) and s["optimal"] is False
            kind = "mistake" if lost else "move"
        out.append(
            {
                "step": i,
                "ply": s["ply"],  # from 0, as the store, the address and the replay count it
                "seat": s["seat"],
                "value": value,
                "score": score,
                "kind": kind,
                "payoff": payoff,
            }
        )
    return out


def chart(
    steps: list[Step],
    seat_names: list[str],
    colours: tuple[str, str] = SEAT_COLOURS,
    truth: TruthView | None = None,
) -> str:
    """The value line as SVG; one sentence instead when no move was graded (no plot with nothing in
    it). `colours` are the seats' colours on the board, so a seat is one colour across the page;
    `truth` words the key (what grades the game; None: nothing does)."""
    points = series(steps)
    valued = [(p, v) for p in points if (v := p["value"]) is not None]
    if not valued:
        if truth is None:
            return '<p class="empty">No value line: nothing grades this game (it has no ground truth), so its moves are ungraded.</p>'
        return (
            f'<p class="empty">No value line: no move of this game was graded by {escape(truth["name"])}.</p>'
        )
    wdl = any(m["value"] is not None for s in steps for m in s["legal"])  # exact game values
    lost_words = truth["lost"] if truth is not None else "not optimal"
    n = len(points)
    step_x = (WIDTH - LEFT - RIGHT) / max(n, 1)

    def x(p: Point) -> float:
        return LEFT + (float(p["step"]) + 0.5) * step_x

    half = _half_span(steps)

    def y(v: float, seat: int) -> float:
        v = v if seat == 0 else -v
        return TOP + (1 - v) / 2 * (HEIGHT - TOP - BOTTOM)

    body = []
    names: dict[int, str] = (
        dict(Y)
        if wdl
        else {1: "1", 0: "½", -1: "0"}
        if half is None
        else {1: f"+{half:g}", 0: "0", -1: f"−{half:g}"}
    )
    for v, name in names.items():
        yy = y(v, 0)
        body.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="#d0d7de"/>')
        body.append(
            f'<text x="{LEFT - 6}" y="{yy + 4:.1f}" text-anchor="end" font-size="11" fill="#636c76">{name}</text>'
        )
    for seat in (0, 1):
        line = " ".join(f"{x(p):.1f},{y(v, seat):.1f}" for p, v in valued)
        dash = "" if seat == 0 else ' stroke-dasharray="5 4"'
        body.append(
            f'<polyline class="seat{seat}" points="{line}" fill="none" stroke="{colours[seat]}" stroke-width="2"{dash}/>'
        )
    for p in points:
        value = p["value"]
        px, py = x(p), y(value if value is not None else 0, 0)
        tip = escape(
            f"ply {p['ply']} ({seat_names[p['seat']]}): "
            + (
                f"{truth['value'] if truth else 'payoff'} {p['payoff']:+.3f}"
                if p.get("payoff") is not None
                else Y[int(value)]
                if wdl and value is not None and value in Y
                else f"expected score {(value + 1) / 2:.3f}"
                if value is not None
                else "not graded"
            )
            + " for "
            + seat_names[0]
            + (f", score {p['score']}" if p["score"] is not None else "")
            + {
                "mistake": f" · {lost_words}",
                "failure": " · failure",
                "move": "",
            }[p["kind"]]
        )
        body.append(
            f'<g class="step" data-step="{p["step"]}"><title>{tip}</title>'
            f'<rect x="{px - step_x / 2:.1f}" y="{TOP - 8}" width="{step_x:.1f}" height="{HEIGHT - TOP - BOTTOM + 16}" fill="transparent"/>'
            f'<circle class="point" cx="{px:.1f}" cy="{py:.1f}" r="3.5" fill="{colours[p["seat"]]}"/>'
        )
        if p["kind"] == "mistake":
            body.append(
                f'<path class="mistake" d="M {px:.1f} {py - 13:.1f} l 6 -10 l -12 0 z" fill="#cf222e"/>'
            )
        elif p["kind"] == "failure":
            body.append(
                f'<path class="failure" d="M {px - 6:.1f} {py - 6:.1f} l 12 12 m 0 -12 l -12 12" stroke="#24292f" stroke-width="3"/>'
            )
        if p["score"] is not None:
            body.append(
                f'<text x="{px:.1f}" y="{HEIGHT - 6}" text-anchor="middle" font-size="9" fill="#636c76">{p["score"]}</text>'
            )
        body.append("</g>")
    body.append(
        f'<rect class="cursor" x="0" y="{TOP - 8}" width="{step_x:.1f}" height="{HEIGHT - TOP - BOTTOM + 16}" '
        'fill="#0969da" fill-opacity=".08" pointer-events="none"/>'
    )
    legend = (
        f'<p class="chart-key"><span class="seat0" style="color:{colours[0]}">{escape(seat_names[0])} (solid)</span>'
        f'<span class="seat1" style="color:{colours[1]}">{escape(seat_names[1])} (dashed)</span>'
        + (f"<span>{escape(truth['value'])}, after each move</span>" if truth is not None and not wdl else "")
        + f'<span class="mk-bad">▼ {escape(lost_words)}</span>'
        + "<span>✕ failure</span>"
        + (
            "<span>numbers: Connect Four's exact score</span>"
            if any(p["score"] is not None for p in points)
            else ""
        )
        + (
            "<span><kbd>n</kbd> / <kbd>p</kbd>: next / previous mistake"
            + (" (or move not optimal by exact score)" if any(p["score"] is not None for p in points) else "")
            + "</span></p>"
        )
    )
    return (
        f'<svg id="value-svg" class="valueline" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" '
        f'data-points="{len(points)}" data-mistakes="{sum(p["kind"] == "mistake" for p in points)}" '
        f'data-step-width="{step_x:.3f}" data-left="{LEFT}" role="img">' + "".join(body) + "</svg>" + legend
    )
