"""What a study tells the run driver: the small protocol every kind of run implements.

A study (a plan of games, a Clue run, a learning experiment, or one of yours) says its run key,
how many games it plans, where its results are kept, and yields its parts: each part is one
stored run with its jobs and how a result is saved. The driver (`harness.driver.run_study`) does
everything else, once for all studies: the store, the claim and lease, skipping saved games,
progress, the status of each part (finished / stopped / interrupted / failed), the summary and
the exit code. A new study is one module with one class; see `tests/harness/toy_study.py`.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Literal, Protocol, TypeVar

from .budget import RunBudget
from .forecast import Forecast
from .rows import Lease

if TYPE_CHECKING:
    from ..models.cache import ResponseCache

Job = TypeVar("Job")  # what the executor plays: a game job, a Clue game, a toy's square
Result = TypeVar("Result")  # what a played job gives back to be saved (a GameRecord...)
StoreT = TypeVar("StoreT", bound="StoreHandle")
Save = Callable[[Result], bool]  # write a finished game durably; False when it was already stored
# How a part ended, as every store records it (a run being played is `running`).
Status = Literal["finished", "stopped", "interrupted", "failed"]
Finish = Callable[[Status, str | None], None]  # record a part's status (and why) in the store


@dataclass
class Part(Generic[Job, Result]):
    """One stored run of a study: a whole `plylab run`, a Clue run, a learning phase.

    `jobs` are drawn as games start and leave out what `already` counts (games the store holds).
    `in_order`: results build on each other (a learning phase), so the part stops at the first
    game left unfinished. `after`: what completes the part once its games are played (a learning
    phase's rule extraction); the part is finished only when it returns, failed if it raises. The
    driver sets `complete` once the part has been played."""

    jobs: Iterable[Job]
    save: Callable[[Result], bool]
    finish: Finish
    games: int  # the part's planned games
    already: int = 0
    model: bool = True
    budget: RunBudget | None = None
    extra: dict[str, object] = field(default_factory=dict)
    concurrency: int | None = None  # None: the run's --concurrency
    in_order: bool = False
    after: Callable[[], Awaitable[None]] | None = None
    complete: bool = False


class StudyContext(Protocol):
    """What a study may ask of the run while it yields its parts: the response cache (opened on
    first need), and the label the progress line shows."""

    def cache(self) -> ResponseCache | None: ...

    def label(self, text: str) -> None: ...


class StoreHandle(Protocol):
    """What the driver needs of a study's store: the run's lease (taken, renewed, given up), `close`,
    and the one run-status interface every store has (the games' `Store`, which Clue's runs share)."""

    def take_lease(self, name: str, me: Lease, free: Callable[[Lease], bool]) -> Lease | None: ...

    def keep_lease(self, name: str, pid: int, every: float, stop: threading.Event) -> None: ...

    def release_lease(self, name: str, pid: int) -> None: ...

    def finish_run(self, run_id: int, status: Status, reason: str | None = None) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Unfinished:
    """A game a provider failure left unfinished: not saved, so the same command plays it again."""

    key: str
    kind: str  # timeout | rate_limit | provider_error | connection | unreachable
    message: str


class Study(Protocol[StoreT, Job, Result]):
    """A run the driver can play whole: its store's type, the jobs it plays and their results. `kind` names it in the summary (`run`, `clue run`, `learning`),
    `lease` is the name its claim holds in the store; `details` adds the study's own facts to the
    summary line; `forecast` says what it will ask of models before anything starts."""

    @property
    def kind(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def lease(self) -> str: ...

    @property
    def planned(self) -> int: ...

    def open_store(self, path: Path) -> StoreT: ...

    def parts(self, store: StoreT, context: StudyContext) -> AsyncGenerator[Part[Job, Result], None]:
        """Yield parts in order; after each, the driver has set `part.complete` (stop when False)."""
        ...

    def details(self) -> list[str]: ...

    def forecast(self, store_path: Path) -> Forecast:
        """Games to play and the model calls, tokens and cost expected, read without writing the store."""
        ...
