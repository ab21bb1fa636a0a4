"""Generation settings a caller may ask for, in one provider-neutral shape.

Fields left at None take the model's defaults (see `Model.defaults`); `merged` layers a caller's
settings over them. Only the sampling fields enter the response-cache key: retries and time-outs
change how a reply is fetched, not what it is.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Effort = Literal["low", "medium", "high"]
Summary = Literal["none", "concise", "detailed", "auto"]

# Fields that change what a model answers (and so key the response cache).
SAMPLING_FIELDS = ("temperature", "max_tokens", "effort", "seed")


class GenerateConfig(BaseModel):
    """Sampling (temperature, max_tokens, effort, seed) and transport (timeout, attempt_timeout, max_retries)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1)
    effort: Effort | None = None  # reasoning effort, where the provider exposes it
    timeout: float | None = Field(None, gt=0.0)  # seconds for the whole call, every retry included
    seed: int | None = None
    # reasoning summaries (inspect's `reasoning_summary`); None: the provider's own detection
    reasoning_summary: Summary | None = None
    max_retries: int | None = Field(None, ge=0)  # retries after the first attempt (5xx, 429, time-out)
    # seconds one attempt may take before it is abandoned and retried (within `timeout`); None: `timeout`
    attempt_timeout: float | None = Field(None, gt=0.0)
    # inspect's provider batch APIs (OpenAI, Anthropic, Google: about half the price, replies within
    # hours); True or a batch size. Transport: how a reply is fetched, not what it is.
    batch: bool | int | None = None

    def merged(self, other: GenerateConfig | None) -> GenerateConfig:
        """This config with every field that `other` sets replacing ours."""
        if other is None:
            return self
        return self.model_copy(update=other.model_dump(exclude_none=True))

    def sampling(self) -> dict[str, Any]:
        """The fields that decide the reply (the cache-key part of the config)."""
        out = {k: getattr(self, k) for k in SAMPLING_FIELDS}
        if self.reasoning_summary is not None:  # only when asked: earlier cache keys stay valid
            out["reasoning_summary"] = self.reasoning_summary
        return out
