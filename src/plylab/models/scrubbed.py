"""What inspect records of a model call is scrubbed of credentials before inspect records it.

inspect writes every call into the sample's transcript (`ModelEvent`: the reply's completion and
choices, the raw request and response, the error and its traceback) and from there into the `.eval`
log, its live buffer and its response cache. A server that echoes the key (in a reply, an error
message, a field of its JSON) would put it in all of them, while plylab's own copies of the reply are
scrubbed at the door (`secrets.scrub`, `models.reply`). `scrub_recorded` wraps a provider's
`generate` so that what it returns, and the error it raises, are scrubbed in place before inspect
sees them: the transcript, the log, the buffer and the cache only ever hold the scrubbed text.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic import BaseModel

from ..secrets import scrub

if TYPE_CHECKING:
    from inspect_ai.model import ModelAPI, ModelOutput

__all__ = ["redacted_flags", "scrub_recorded", "scrubbed"]

T = TypeVar("T")
_WRAPPED = "_plylab_scrubbed"
# Where a scrubbed output says what was redacted (in its metadata): the reply's flags, as the door
# flags what it scrubs itself (`models.reply`).
REDACTED = "plylab_redacted"


def scrubbed(value: T) -> T:
    """`value` with every string in it scrubbed (`secrets.scrub`): pydantic models, lists, tuples and
    dicts (their values) rebuilt where something changed; the same object where nothing did."""
    out: Any = value
    if isinstance(value, str):
        clean = scrub(value)
        out = value if clean == value else clean
    elif isinstance(value, BaseModel):
        changed = {}
        for name in type(value).model_fields:
            inner = getattr(value, name, None)
            if (fresh := scrubbed(inner)) is not inner:
                changed[name] = fresh
        out = value.model_copy(update=changed) if changed else value
    elif isinstance(value, list | tuple):
        items = [scrubbed(v) for v in value]
        if any(a is not b for a, b in zip(items, value, strict=True)):
            out = type(value)(items)
    elif isinstance(value, dict):
        pairs = {k: scrubbed(v) for k, v in value.items()}
        if any(pairs[k] is not v for k, v in value.items()):
            out = pairs
    return cast(T, out)


def _scrub_error(exc: BaseException) -> None:
    """An exception's message and the server's words it carries (`message`, `body`), scrubbed in
    place: it keeps its type, which inspect's retry rule reads."""
    exc.args = tuple(scrubbed(a) for a in exc.args)
    for name in ("message", "body"):
        found = getattr(exc, name, None)
        if isinstance(found, str | dict | list):
            try:
                setattr(exc, name, scrubbed(found))
            except AttributeError:  # a read-only property: its text is in args too
                pass


def scrub_recorded(api: ModelAPI) -> None:
    """Wrap `api.generate` (once) so that its output, its raw call and its errors are scrubbed
    before inspect records them (module doc)."""
    if getattr(api, _WRAPPED, False):
        return
    generate: Callable[..., Awaitable[Any]] = api.generate

    async def generate_scrubbed(*args: Any, **kwargs: Any) -> Any:
        try:
            result = await generate(*args, **kwargs)
        except Exception as exc:
            _scrub_error(exc)
            raise
        output, call = result if isinstance(result, tuple) else (result, None)
        if isinstance(output, Exception):
            _scrub_error(output)
        elif (clean := scrubbed(output)) is not output:
            part = "text" if clean.completion != output.completion else "reply"
            clean.metadata = {**(clean.metadata or {}), REDACTED: [f"{part}: credentials redacted"]}
            output = clean
        if call is None:
            return output
        # the call is the one inspect's event already holds (the request was recorded as it was
        # sent): scrubbed where it is
        call.request, call.response = scrubbed(call.request), scrubbed(call.response)
        return output, call

    api.generate = generate_scrubbed  # type: ignore[method-assign]
    setattr(api, _WRAPPED, True)


def redacted_flags(output: ModelOutput) -> tuple[str, ...]:
    """What `scrub_recorded` redacted from `output` before inspect recorded it, as reply flags."""
    return tuple(str(f) for f in (output.metadata or {}).get(REDACTED, ()))
