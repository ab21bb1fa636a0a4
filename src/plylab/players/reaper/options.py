"""Spec keys of `reaper:`, `memento:` and `cbr:`. One option set; the variants change defaults."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from ...specs import Params
from ..llm import policy_of


class ReaperOptions(Params):
    """Switches (reflection, rules, descriptor) toggle components; *_model overrides `model` per component."""

    model: str = "local"
    memory: Path | None = None  # a trained memory to play with (read-only)
    reflection: bool = True
    rules: bool = True
    descriptor: bool = False
    k: int = Field(8, ge=0, le=64)
    rule_period: int = Field(20, ge=1)
    max_rules: int = Field(20, ge=1, le=100)
    answer: Literal["legal", "free"] = "legal"  # legal: the final answer is an enum of legal moves
    iterations: int = Field(3, ge=1, le=5)  # planner iterations per move (the last must answer)
    subtasks: int = Field(3, ge=1, le=5)  # subtasks per plan
    planner_model: str | None = None
    executor_model: str | None = None
    descriptor_model: str | None = None
    reflector_model: str | None = None
    extractor_model: str | None = None
    on_failure: str = "forfeit"
    effort: Literal["low", "medium", "high"] | None = None
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1)  # per decision call (planner, executor, descriptor)
    update_max_tokens: int = Field(1024, ge=16)  # per reflection or rule extraction
    timeout: float | None = Field(None, gt=0.0)

    @field_validator("on_failure")
    @classmethod
    def _policy(cls, value: str) -> str:
        policy_of(value)
        return value

    @field_validator("memory")
    @classmethod
    def _trained(cls, value: Path | None) -> Path | None:
        if value is not None and not value.is_file():
            raise ValueError("no memory file there; train one with `plylab learn`")
        return value

    def model_for(self, component: str) -> str:
        return getattr(self, f"{component}_model") or self.model


class BaselineOptions(ReaperOptions):
    reflection: bool = False
    rules: bool = False


class OriginalOptions(BaselineOptions):
    answer: Literal["legal", "free"] = "free"  # prose replies: the answer is never constrained
