"""The state descriptor: the position in words, used as the retrieval key instead of the raw
observation, so positions that differ only in surface form can meet (at one extra call a move)."""

from __future__ import annotations

from . import prompts, schemas
from .calls import Caller


async def describe(caller: Caller, rules_text: str, seat: str, observation: str, key: str) -> str:
    text = await caller.ask(
        "descriptor",
        prompts.descriptor_messages(rules_text, seat, observation),
        schemas.DESCRIPTOR_SCHEMA,
        key,
    )
    try:
        return schemas.read(schemas.Description, text).description.strip()
    except ValueError as exc:
        raise caller.fail("unparseable", f"descriptor: {exc}") from None
