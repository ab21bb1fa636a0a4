"""What one model call returns: the text, any reasoning, and what it cost.

Every Reply is safe to store however it was built (from a server's answer or read back from the
response cache): text holds no lone surrogates and no credentials in use, counts fit in 64 bits
with room to sum. What had to be replaced is listed in `flags` (see `sanitize` and `secrets`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..secrets import scrub
from .sanitize import safe_cost, safe_count, safe_text

_COUNTS = ("input_tokens", "output_tokens", "reasoning_tokens")


class Usage(BaseModel):
    """Tokens of one call; `cost` in dollars when the provider (or inspect's price table) knows it."""

    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None


class Reply(BaseModel):
    """A model's answer. `cached` marks a reply read back from the response cache (no new call);
    `flags` names every unsafe value the door replaced (a record keeps them with the attempt)."""

    model_config = ConfigDict(frozen=True)

    text: str
    reasoning: str | None = None
    usage: Usage = Field(default_factory=Usage)
    cached: bool = False
    latency: float = 0.0  # seconds of the original call, retries included
    stop_reason: str | None = None  # e.g. "stop", "max_tokens"
    flags: tuple[str, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _made_safe(cls, data: object) -> object:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        flags = [str(f) for f in data.get("flags") or ()]
        fresh: list[str] = []
        for field in ("text", "reasoning", "stop_reason"):
            value = data.get(field)
            if value is None and field != "text":
                continue
            text = safe_text(value, field, fresh)
            clean = scrub(text)
            if clean != text:
                fresh.append(f"{field}: credentials redacted")
            data[field] = clean
        usage = data.get("usage")
        if isinstance(usage, Usage):
            usage = usage.__dict__
        if isinstance(usage, dict):
            data["usage"] = {
                **{k: safe_count(usage.get(k), k, fresh) for k in _COUNTS},
                "cost": safe_cost(usage.get("cost"), fresh),
            }
        elif usage is not None:
            fresh.append("usage: not an object, counted as 0")
            data["usage"] = {}
        data["flags"] = tuple(flags + [f for f in fresh if f not in flags])
        return data
