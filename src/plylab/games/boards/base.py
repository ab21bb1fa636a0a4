"""What every drawing shares: the marks to draw, the colours, the registry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from markupsafe import escape

from ...registry import Registry

if TYPE_CHECKING:
    import pyspiel

# The site's win / draw / loss colours (static/site.css), from the mover's side.
VALUE_COLOURS = {"win": "#1a7f37", "draw": "#9a6700", "loss": "#cf222e"}
LAST = "#0969da"  # the last move
CHOSEN = "#bf8700"  # the move played from this position


@dataclass(frozen=True)
class Marks:
    """What to draw over the position: the move that led to it, the move played from it, and the
    exact value (win/draw/loss for the mover) and score of each legal move."""

    last: int | None = None
    chosen: int | None = None
    values: dict[int, str] = field(default_factory=dict)
    scores: dict[int, float] = field(default_factory=dict)
    before: pyspiel.State | None = (
        None  # the state `last` was played from (where it landed is read off the two)
    )


Drawing = Callable[["pyspiel.State", Marks], str | None]
DRAWINGS: Registry[Drawing] = Registry("board drawing")


def register_drawing(*games: str) -> Callable[[Drawing], Drawing]:
    def deco(fn: Drawing) -> Drawing:
        for g in games:
            DRAWINGS.add(g, fn)
        return fn

    return deco


def svg(width: float, height: float, body: list[str], **data: object) -> str:
    """An <svg> of class `board` sized in CSS pixels; `data` become data-* attributes (counts)."""
    attrs = "".join(f' data-{k}="{escape(str(v))}"' for k, v in data.items())
    return (
        f'<svg class="board-svg" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'width="{width:.0f}" height="{height:.0f}" role="img"{attrs}>' + "".join(body) + "</svg>"
    )


def title(text: object) -> str:
    return f"<title>{escape(str(text))}</title>"


def marked_actions(marks: Marks) -> list[int]:
    """Every action to draw: those with a value or score, and the one played."""
    extra = {marks.chosen} if marks.chosen is not None else set()
    return sorted(marks.values.keys() | marks.scores.keys() | extra)


def value_title(marks: Marks, action: int) -> str:
    v = marks.values.get(action)
    s = marks.scores.get(action)
    parts = [v or "not scored"] + ([f"score {s}"] if s is not None else [])
    return ", ".join(parts)


def attr(key: str, value: object) -> str:
    """` key="value"` with a Python-safe key spelled as SVG spells it (`class_` -> class, `stroke_width` -> stroke-width)."""
    return f' {key.rstrip("_").replace("_", "-")}="{escape(str(value))}"'
