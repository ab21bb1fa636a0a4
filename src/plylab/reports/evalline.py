"""A chess replay's engine view: White's expected score after every ply as a line, and an evaluation bar.

For games graded by an engine (oracles/engine.py) each stored move's grade holds the evaluation
before the move (the best move's) and after it (the move played), from the mover's side; here both
are turned to White's side, so the line reads as a chess site's evaluation graph. Moves lichess
would annotate (?!, ?, ??) are marked on the line and are the replay's mistakes (`n` jumps to them);
each point names its step (data-step), so a click goes to that ply, as on the exact value line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from markupsafe import escape

from ..analysis.chess import NAGS, graded_ply
from ..jsontypes import JSONObject
from ..oracles.engine import eval_text
from ..oracles.graded import Grade

if TYPE_CHECKING:
    from .payload import EngineView, Step

WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 720, 184, 64, 14, 30, 30
MARK = {"inaccuracy": "#bf8700", "mistake": "#e16f24", "blunder": "#cf222e"}


def _white(ev: JSONObject, mover_white: bool) -> tuple[float, str]:
    """An evaluation (mover's side) as White's expected score and its text (+0.34, #-2, 1-0)."""
    from ..oracles.engine import Evaluation

    if "result" in ev:
        result = ev["result"]
        assert isinstance(result, int | float)
        r = result if mover_white else 1 - result
        return r, {1.0: "1-0", 0.0: "0-1"}.get(r, "½-½")
    cp, mate = ev.get("cp"), ev.get("mate")
    e = Evaluation(cp if isinstance(cp, int) else None, mate if isinstance(mate, int) else None, None)
    e = e if mover_white else e.flipped()
    return e.expected, eval_text(e.cp, e.mate)


def engine_view(grade_text: str | None, ply: int) -> EngineView | None:
    """What the replay shows of one engine-graded move (the `ply`-th, from 0); None for a move no
    engine graded. Its judgement is lichess's from the move's own two evaluations (the first move's
    from lichess's fixed +0.15), as lichess judges it in a game graded throughout."""
    if grade_text is None:
        return None
    grade = Grade.from_json(grade_text)
    d = grade.detail
    if "played_eval" not in d:
        return None
    mover_white = d.get("mover") == "white"
    before, before_text = _white(d["eval"], mover_white)
    after, after_text = _white(d["played_eval"], mover_white)
    moved = graded_ply(ply, 0, grade)
    return {
        "source": grade.source,
        "before": before,
        "before_text": before_text,
        "after": after,
        "after_text": after_text,
        "best": d["best"]["label"],
        "best_played": moved.is_best,
        "pv": d.get("pv", []),
        "loss": moved.loss,
        "cp_loss": moved.cp_loss,
        "judgement": moved.judgement,
        "nag": NAGS.get(moved.judgement or "", ""),
    }


def source_of(steps: list[Step]) -> str | None:
    """The engine and limit a replay's moves were graded by; None where no engine graded them."""
    found = sorted({e["source"] for s in steps if (e := s.get("engine"))})
    return ", ".join(found) if found else None


def chart(steps: list[Step]) -> str:
    """White's expected score after each ply as SVG, the annotated moves marked."""
    n = len(steps)
    step_x = (WIDTH - LEFT - RIGHT) / max(n, 1)

    def x(i: int) -> float:
        return LEFT + (i + 0.5) * step_x

    def y(v: float) -> float:
        return TOP + (1 - v) * (HEIGHT - TOP - BOTTOM)

    body = []
    for v, name in ((1.0, "White"), (0.5, "½"), (0.0, "Black")):
        body.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#d0d7de"/>'
            f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end" font-size="11" fill="#636c76">{name}</text>'
        )
    points = [(i, e) for i, s in enumerate(steps) if (e := s.get("engine"))]
    line = " ".join(f"{x(i):.1f},{y(e['after']):.1f}" for i, e in points)
    body.append(f'<polyline class="evalline" points="{line}" fill="none" stroke="#0969da" stroke-width="2"/>')
    marked = 0
    for i, s in enumerate(steps):
        e = s.get("engine")
        px = x(i)
        if e is None:
            tip = f"ply {s['ply']}: not graded"  # from 0, as the store and the replay count it
            dot = ""
        else:
            tip = (
                f"ply {s['ply']} ({s['mover']}): {s['label']}{e['nag']} · after: {e['after_text']} "
                f"(White {e['after']:.2f}) · best {e['best']}"
            )
            dot = f'<circle class="point" cx="{px:.1f}" cy="{y(e["after"]):.1f}" r="3" fill="#0969da"/>'
            if e["judgement"]:
                marked += 1
                dot += (
                    f'<path class="mistake {e["judgement"]}" d="M {px:.1f} {y(e["after"]) - 6:.1f} l 6 -10 l -12 0 z" '
                    f'fill="{MARK[e["judgement"]]}"/>'
                )
        body.append(
            f'<g class="step" data-step="{i}"><title>{escape(tip)}</title>'
            f'<rect x="{px - step_x / 2:.1f}" y="{TOP - 8}" width="{step_x:.1f}" height="{HEIGHT - TOP - BOTTOM + 16}" fill="transparent"/>'
            f"{dot}</g>"
        )
    body.append(
        f'<rect class="cursor" x="0" y="{TOP - 8}" width="{step_x:.1f}" height="{HEIGHT - TOP - BOTTOM + 16}" '
        'fill="#0969da" fill-opacity=".08" pointer-events="none"/>'
    )
    legend = (
        "<p class=\"chart-key\"><span>White's expected score after each ply (lichess's curve)</span>"
        + "".join(f'<span style="color:{c}">▼ {name} ({NAGS[name]})</span>' for name, c in MARK.items())
        + "<span><kbd>n</kbd> / <kbd>p</kbd>: next / previous mistake</span></p>"
    )
    return (
        f'<svg id="value-svg" class="valueline evalline" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" '
        f'data-points="{n}" data-mistakes="{marked}" data-step-width="{step_x:.3f}" data-left="{LEFT}" role="img">'
        + "".join(body)
        + "</svg>"
        + legend
    )
