"""One player's answer to one position of a suite, as the suite run stores it and its report reads it.

Its own module, below the run (`study`) and Clue's snapshots (`deduction`), which both make answers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Answer:
    """One player's answer to one position, scored on the position's graded scale. A failure (no
    legal move) is not optimal and loses best minus the worst legal move."""

    position: int
    player: str
    position_id: str
    action: int | None
    label: str | None
    optimal: bool
    loss: float
    span: float
    chance: float
    features: dict[str, Any]
    failure: str | None = None
    prompt: str | None = None
    reply: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    cache_hits: int = 0
    cost: float | None = None
    elapsed: float = 0.0
    deduction: dict[str, Any] | None = None  # a Clue snapshot's judged claims (suites.deduction.judge)
    memory: str | None = None  # the frozen experience memory that answered (REAPER's), by content hash
    repeat: int = 0  # which answer to the position this is, under `suite run --repeats N` (0: the first)
