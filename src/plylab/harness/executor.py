"""Executor backends: where game jobs run. Results always come back to the one store writer.

`local` runs games as asyncio tasks (many LLM games in flight, bounded by --concurrency) and,
with --workers > 1, ships CPU-bound games (search players, no model) to worker processes.
`ray` (backends/ray.py, the optional extra) ships batches of games to a Ray cluster. Backends are
a registry, so anything else is one more module. A job is a GameJob, or any picklable object with
`key`, `uses_model` and `async play(context)` (other kinds of games, e.g. Clue).

Ctrl-C: pool workers ignore SIGINT and die with their parent (even a `kill -9`ed one); the run
loop stops starting games, kills the pool and returns, and the runner prints what was saved.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import ctypes
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..players import RunContext, player_class
from ..registry import Registry
from .plan import GameJob
from .session import play_game
from .store import GameRecord

OnResult = Callable[[GameRecord], None]
ShouldStart = Callable[[], bool]


@dataclass
class ExecOptions:
    """How to run jobs. `workers`: processes (local) or CPU slots (ray); 0 = the backend's default
    (local: none, games play in this process; ray: every CPU of the cluster). `run_dir`: the run's
    folder (the ray backend keeps a local instance's temporary files there)."""

    concurrency: int = 1
    workers: int = 1
    address: str | None = None
    run_dir: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Executor(Protocol):
    async def run(
        self, jobs: Sequence[GameJob], context: RunContext, on_result: OnResult, should_start: ShouldStart
    ) -> None:
        """Play jobs, calling on_result for each finished game (in the caller's loop/thread).

        `should_start()` is asked before each new game starts; False stops starting new games
        (a budget ran out) while games already in flight finish.
        """


EXECUTORS: Registry[Callable[[ExecOptions], Executor]] = Registry("backend")


def uses_model(job: GameJob) -> bool:
    """Does the job call a language model? A job may say so itself (`uses_model`); a GameJob's players do."""
    own = getattr(job, "uses_model", None)
    if own is not None:
        return bool(own)
    return any(player_class(spec)[1].uses_model for spec in job.seat_specs())


def play(job: GameJob, context: RunContext) -> Awaitable[GameRecord]:
    """Play one job. A job with its own `play(context)` coroutine (another kind of game, e.g. Clue)
    is played by it; a GameJob by the harness session. Backends call this, never play_game directly."""
    own = getattr(job, "play", None)
    return own(context) if own is not None else play_game(job, context)


_WORKER_LOOP: asyncio.AbstractEventLoop | None = None


def _play_in_worker(job: GameJob) -> GameRecord:
    """Play a job in a pool worker, on one event loop for all its games (a new loop per game costs)."""
    global _WORKER_LOOP
    if _WORKER_LOOP is None:
        _WORKER_LOOP = asyncio.new_event_loop()
    return _WORKER_LOOP.run_until_complete(play(job, RunContext()))


@contextmanager
def backend_session(backend: str, options: ExecOptions) -> Iterator[None]:
    """Hold a backend open across several `run` calls (e.g. one per learning phase): inside it,
    the ray backend joins or starts Ray once instead of once per call. A no-op for local."""
    if backend == "ray":
        make_executor(backend, options)  # a missing extra or a bad address: one clear error first
        from .backends.ray import ray_session

        with ray_session(options):
            yield
    else:
        yield


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (a `kill -9`ed run leaves no workers)."""
    if sys.platform.startswith("linux"):
        parent = os.getppid()
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)


def _init_worker() -> None:
    """Pool workers leave Ctrl-C to the parent, which stops them; no tracebacks from children."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


def _kill_pool(pool: cf.ProcessPoolExecutor) -> None:
    """Stop now: drop queued games and kill workers mid-game (their games were not saved; a re-run
    plays them again)."""
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.kill()


async def _bounded(
    jobs: Sequence[GameJob],
    limit: int,
    start: Callable[[GameJob], Awaitable[GameRecord]],
    on_result: OnResult,
    should_start: ShouldStart,
) -> None:
    """Keep at most `limit` games in flight; stop starting new ones once should_start() is False."""
    pending: set[asyncio.Future[GameRecord]] = set()
    queue = list(jobs)
    try:
        while queue or pending:
            while queue and len(pending) < limit and should_start():
                pending.add(asyncio.ensure_future(start(queue.pop(0))))  # a coroutine or a pool future
            if not pending:
                break
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                on_result(task.result())
    finally:
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)


class LocalExecutor:
    def __init__(self, options: ExecOptions) -> None:
        self.options = options

    async def run(
        self, jobs: Sequence[GameJob], context: RunContext, on_result: OnResult, should_start: ShouldStart
    ) -> None:
        workers = max(1, self.options.workers)
        in_process = [j for j in jobs if workers == 1 or uses_model(j)]
        shipped = [j for j in jobs if workers > 1 and not uses_model(j)]
        tasks = []
        if in_process:
            limit = max(1, self.options.concurrency)
            tasks.append(_bounded(in_process, limit, lambda j: play(j, context), on_result, should_start))
        if shipped:
            tasks.append(self._run_pool(shipped, workers, on_result, should_start))
        await asyncio.gather(*tasks)

    async def _run_pool(
        self, jobs: Sequence[GameJob], workers: int, on_result: OnResult, should_start: ShouldStart
    ) -> None:
        loop = asyncio.get_running_loop()
        pool = cf.ProcessPoolExecutor(max_workers=workers, initializer=_init_worker)
        try:
            await _bounded(
                jobs, workers * 4, lambda j: loop.run_in_executor(pool, _play_in_worker, j), on_result, should_start
            )
        except BaseException:
            _kill_pool(pool)
            raise
        pool.shutdown(wait=True)


EXECUTORS.add("local", LocalExecutor)


def make_executor(backend: str, options: ExecOptions) -> Executor:
    """The executor called `backend`; UserError if unknown or if its optional extra is missing."""
    return EXECUTORS.get(backend)(options)


def default_workers() -> int:
    return max(1, (os.cpu_count() or 1))


from . import backends  # noqa: E402,F401 - registers the optional backends (ray)
