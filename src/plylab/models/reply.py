"""What one model call returns: the text, any reasoning, and what it cost."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Usage(BaseModel):
    """Tokens of one call; `cost` in dollars when the provider (or inspect's price table) knows it."""

    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None


class Reply(BaseModel):
    """A model's answer. `cached` marks a reply read back from the response cache (no new call)."""

    model_config = ConfigDict(frozen=True)

    text: str
    reasoning: str | None = None
    usage: Usage = Field(default_factory=Usage)
    cached: bool = False
    latency: float = 0.0  # seconds of the original call, retries included
    stop_reason: str | None = None  # e.g. "stop", "max_tokens"
