"""The executor contract: where game jobs run. Results always come back to the one store writer.

A job is a GameJob, or any picklable object with `key`, `uses_model` and `async play(context)`
(other kinds of games, e.g. Clue). Jobs arrive as an iterator, pulled only as games start, so a
billion-game plan costs no memory up front. Backends are a registry (`EXECUTORS`, filled by this
package's `__init__`), so another backend is one more module here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Protocol, cast, runtime_checkable

from ...errors import ProviderFailure
from ...players import RunContext, player_class
from ...registry import Registry
from ..plan import GameJob
from ..session import play_game
from ..study import Unfinished

# A job's result, as `play` gives it: the study's (a GameRecord...), or `Unfinished`; the driver
# hands it to the study's save, which alone knows its type.
OnResult = Callable[[object], None]
ShouldStart = Callable[[], bool]


@runtime_checkable
class Seated(Protocol):
    """A job whose players are named by seat (a GameJob): they say whether it calls a model."""

    def seat_specs(self) -> tuple[str, ...]: ...


@dataclass
class ExecOptions:
    """How to run jobs. `workers`: processes (local) or CPU slots (ray); 0 = the backend's default
    (local: none, games play in this process; ray: every CPU of the cluster). `run_dir`: the run's
    folder (the ray backend keeps a local instance's temporary files there)."""

    concurrency: int = 1
    workers: int = 1
    address: str | None = None
    run_dir: str | None = None
    extra: dict[str, object] = field(default_factory=dict)


class Executor(Protocol):
    async def run(
        self, jobs: Iterable[object], context: RunContext, on_result: OnResult, should_start: ShouldStart
    ) -> None:
        """Play jobs, calling on_result for each finished game (in the caller's loop/thread).

        `should_start()` is asked before each new game starts; False stops starting new games
        (a budget ran out) while games already in flight finish.
        """

    def session(self) -> AbstractContextManager[None]:
        """Hold the backend open across several `run` calls (Ray joined once); a no-op locally."""


EXECUTORS: Registry[Callable[[ExecOptions], Executor]] = Registry("backend")


def uses_model(job: object) -> bool:
    """Does the job call a language model? A job may say so itself (`uses_model`); a GameJob's players do."""
    own = getattr(job, "uses_model", None)
    if own is not None:
        return bool(own)
    if not isinstance(job, Seated):
        raise AttributeError(f"a {type(job).__name__} job says neither `uses_model` nor `seat_specs`")
    return any(player_class(spec)[1].uses_model for spec in job.seat_specs())


async def play(job: object, context: RunContext) -> object:
    """Play one job. A job with its own `play(context)` coroutine (another kind of game, e.g. Clue)
    is played by it; a GameJob by the harness session. Backends call this, never play_game directly.
    A game a provider failure left unfinished comes back as `Unfinished` (not saved, played again)."""
    own = getattr(job, "play", None)
    try:
        # a job without a `play` of its own is a GameJob (the contract above)
        return await (own(context) if own is not None else play_game(cast(GameJob, job), context))
    except ProviderFailure as failure:
        return Unfinished(str(getattr(job, "key", "")), failure.kind, failure.message)


def make_executor(backend: str, options: ExecOptions) -> Executor:
    """The executor called `backend`; UserError if unknown or if its optional extra is missing."""
    return EXECUTORS.get(backend)(options)


@contextmanager
def backend_session(backend: str, options: ExecOptions) -> Iterator[None]:
    """Hold a backend open across several runs (e.g. one per learning phase)."""
    with make_executor(backend, options).session():  # a missing extra or a bad address: one clear error first
        yield
