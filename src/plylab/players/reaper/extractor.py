"""The rule extractor: consolidates new reflected cases and the current rules into a new set.

The set is rewritten whole each time (self-correcting: rules merge, sharpen or disappear), kept
small (`max_rules`, about twenty) and position-independent, so it also guides play in states
the case memory has never seen.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import prompts, schemas
from .calls import Caller
from .memory import Case


async def extract(
    caller: Caller,
    rules_text: str,
    current: Sequence[str],
    cases: Sequence[Case],
    key: str,
    *,
    max_rules: int,
    max_tokens: int | None,
    last: int | None = None,
) -> list[str]:
    """The new rule set (CallFailed when the extractor gave none).

    Every case since the last extraction is shown (seed 003 l.154); `last` keeps only the last N.
    """
    shown = list(cases) if last is None else list(cases)[-last:]
    messages = prompts.extractor_messages(rules_text, current, shown, max_rules)
    text = await caller.ask(
        "extractor", messages, schemas.rules_schema(max_rules), key, max_tokens=max_tokens
    )
    try:
        return schemas.read_rules(text, max_rules)
    except ValueError as exc:
        raise caller.fail("unparseable", f"extractor: {exc}") from None
