"""Executor backends: where game jobs run. Results always come back to the one store writer.

`local` runs games as asyncio tasks (many LLM games in flight, bounded by --concurrency) and,
with --workers > 1, ships CPU-bound games (search players, no model) to worker processes.
Backends are a registry, so Ray (or anything else) is one more module.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import os
from collections.abc import Awaitable, Callable, Sequence
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
    return any(player_class(spec)[1].uses_model for spec in job.seat_specs())


def _play_in_worker(job: GameJob) -> GameRecord:
    return asyncio.run(play_game(job, RunContext()))


async def _bounded(
    jobs: Sequence[GameJob],
    limit: int,
    start: Callable[[GameJob], Awaitable[GameRecord]],
    on_result: OnResult,
    should_start: ShouldStart,
) -> None:
    """Keep at most `limit` games in flight; stop starting new ones once should_start() is False."""
    pending: set[asyncio.Task[GameRecord]] = set()
    queue = list(jobs)
    try:
        while queue or pending:
            while queue and len(pending) < limit and should_start():
                pending.add(asyncio.create_task(start(queue.pop(0))))
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
            tasks.append(_bounded(in_process, limit, lambda j: play_game(j, context), on_result, should_start))
        if shipped:
            tasks.append(self._run_pool(shipped, workers, on_result, should_start))
        await asyncio.gather(*tasks)

    async def _run_pool(
        self, jobs: Sequence[GameJob], workers: int, on_result: OnResult, should_start: ShouldStart
    ) -> None:
        loop = asyncio.get_running_loop()
        with cf.ProcessPoolExecutor(max_workers=workers) as pool:
            await _bounded(
                jobs, workers * 2, lambda j: loop.run_in_executor(pool, _play_in_worker, j), on_result, should_start
            )


EXECUTORS.add("local", LocalExecutor)


def make_executor(backend: str, options: ExecOptions) -> Executor:
    return EXECUTORS.get(backend)(options)


def default_workers() -> int:
    return max(1, (os.cpu_count() or 1))
