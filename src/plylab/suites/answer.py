"""One player's answer to one position of a suite, as the suite run stores it and its report reads it;
the question that asked for it; the runs of a store with their answers.

Its own module, below the run (`study`), the suite kinds (`kinds`) that ask and score, and the
report, which all use these types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .content import Position


class Question(Protocol):
    """One position put to one player, as a suite kind's `ask` reads it (`study.SuiteJob` is one)."""

    @property
    def key(self) -> str:
        """The job's key: the suite's run, the position and the player (a repeat's own)."""
        ...

    @property
    def game(self) -> str: ...

    @property
    def formulation(self) -> str: ...

    @property
    def player(self) -> str: ...

    @property
    def position(self) -> Position: ...

    @property
    def seed(self) -> int: ...

    @property
    def memory(self) -> str | None:
        """The player's frozen memory (`Player.memory_hash`), saved with the answer."""
        ...

    @property
    def repeat(self) -> int:
        """Which of `--repeats` answers to the position this is (0: the first)."""
        ...


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


@dataclass(frozen=True)
class SuiteRun:
    """A suite run as the report reads it: its name, suite name, hash and game."""

    id: int
    name: str
    suite: str
    hash: str
    game: str


@dataclass(frozen=True)
class SuiteResults:
    """Every suite run of a store with its answers: what the suite tables are built from."""

    runs: tuple[tuple[SuiteRun, tuple[Answer, ...]], ...]
