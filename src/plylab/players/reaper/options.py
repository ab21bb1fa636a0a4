"""Spec keys of `reaper:`, `memento:` and `cbr:`. One option set; the variants change defaults."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from ...specs import Params
from ..llm import policy_of


class ReaperOptions(Params):
    """Switches (reflection, rules, descriptor) toggle components; *_model overrides `model` per component.

    Defaults are the paper's (seed 003): a free-form final answer validated against the legal moves
    afterwards (l.144; `answer=legal` constrains it), at most 3 planner iterations with no final
    answer a failure (l.381; `force_final=on` makes the last round's schema admit only an answer),
    retrieval stratified by recorded reward (l.399; `strata=label` stratifies by the reflection's
    label instead), every case since the last extraction given to the rule extractor (l.154;
    `rule_cases=N` keeps only the last N), reflections and rule extractions without a token cap
    (l.51, D.2 state none; `update_max_tokens=N` keeps one), and medium reasoning effort (l.162).
    """

    model: str = "local"
    memory: Path | None = None  # a trained memory to play with (read-only)
    reflection: bool = True
    rules: bool = True
    descriptor: bool = False
    k: int = Field(8, ge=0, le=64)
    rule_period: int = Field(20, ge=1)
    max_rules: int = Field(20, ge=1, le=100)
    answer: Literal["free", "legal"] = "free"  # legal: the final answer is an enum of legal moves
    iterations: int = Field(3, ge=1, le=5)  # planner iterations per move (l.381)
    force_final: bool = False  # on: the last iteration's schema admits only a final answer
    strata: Literal["reward", "label"] = "reward"  # what splits the stratified retrieval (l.399)
    rule_cases: int = Field(0, ge=0)  # 0: every case since the last extraction (l.154); N: the last N
    subtasks: int = Field(3, ge=1, le=5)  # subtasks per plan
    planner_model: str | None = None
    executor_model: str | None = None
    descriptor_model: str | None = None
    reflector_model: str | None = None
    extractor_model: str | None = None
    on_failure: str = "forfeit"
    # A provider's failure (retries spent) is not the model's: the game is left unfinished and played
    # again on re-run (003 l.202); forfeit: the old policy, the move fails and the game is forfeited.
    on_provider_failure: Literal["unfinished", "forfeit"] = "unfinished"
    effort: Literal["low", "medium", "high", "unset"] = "medium"  # the REAPER study's (l.162)
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1)  # per decision call (planner, executor, descriptor)
    # Per reflection or rule extraction: no cap, as the paper states none (l.51, D.2); a reply cut
    # short falls back to outcome labels, and the learning report counts it as `truncated`.
    update_max_tokens: int | None = Field(None, ge=16)
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
    pass  # prose replies: the answer is never constrained, whatever `answer` says
