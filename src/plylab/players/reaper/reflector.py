"""The self-reflector: one pass over a finished game, one judgement per move.

Each move is judged on two independent axes, local quality (sound when played) and outcome
contribution (helped / hurt / neutral), plus whether its intent was achieved, the game's turning
point and a short lesson. The judgement sets the case's label: a sound move that did not hurt is
an example to emulate even in a lost game; any other move is a mistake to avoid. Without a
reflection (Original, Baseline, or a failed call) the label is the terminal reward; a failed,
truncated or partial reflection is logged in the memory's updates and counted in the learning report.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import prompts, schemas
from .calls import Caller
from .schemas import Reflection


async def reflect(
    caller: Caller,
    rules_text: str,
    seat: str,
    steps: Sequence[prompts.Step],
    result: str,
    key: str,
    *,
    max_tokens: int | None,
) -> list[Reflection | None]:
    """Per-move reflections (None for a move the reply skipped); CallFailed when there is none."""
    messages = prompts.reflector_messages(rules_text, seat, steps, result)
    text = await caller.ask(
        "reflector", messages, schemas.reflection_schema(len(steps)), key, max_tokens=max_tokens
    )
    try:
        judged, turning = schemas.read_reflection(text, len(steps))
    except ValueError as exc:
        raise caller.fail("unparseable", f"reflector: {exc}") from None
    return [
        None
        if m is None
        else Reflection(
            quality=m.quality,
            contribution=m.contribution,
            intent_achieved=m.intent_achieved,
            lesson=m.lesson.strip(),
            turning_point=turning == i,
        )
        for i, m in enumerate(judged, 1)
    ]


def label(reward: float, reflection: Reflection | None) -> str:
    """positive (emulate) or negative (avoid)."""
    if reflection is None:
        return "positive" if reward > 0 else "negative"
    return (
        "positive"
        if reflection["quality"] == "sound" and reflection["contribution"] != "hurt"
        else "negative"
    )
