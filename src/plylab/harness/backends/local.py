"""The `local` backend: games as asyncio tasks in this process (model games, bounded by
--concurrency) and, with --workers > 1, CPU-bound games (search players, no model) in worker processes.

Jobs are pulled from the iterator only when a slot is free, so memory stays flat however many
games a plan holds. Ctrl-C: pool workers ignore SIGINT and die with their parent (even a
`kill -9`ed one); the loop stops starting games, kills the pool and returns.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import ctypes
import os
import signal
import sys
from collections.abc import Iterable
from contextlib import AbstractContextManager, nullcontext

from ...errors import UserError
from ...players import RunContext
from .base import ExecOptions, OnResult, ShouldStart, play, uses_model

_WORKER_LOOP: asyncio.AbstractEventLoop | None = None


def _play_in_worker(job: object) -> object:
    """Play a job in a pool worker, on one event loop for all its games (a new loop per game costs)."""
    global _WORKER_LOOP
    if _WORKER_LOOP is None:
        _WORKER_LOOP = asyncio.new_event_loop()
    return _WORKER_LOOP.run_until_complete(play(job, RunContext()))


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (a `kill -9`ed run leaves no workers)."""
    if sys.platform.startswith("linux"):
        parent = os.getppid()
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)


def _init_worker(workers: int = 1) -> None:
    """Pool workers leave Ctrl-C and SIGTERM to the parent, which stops them; no tracebacks from
    children. Each grades with its share of the cores (oracles/engine_pool.py), so `workers` pools
    of engines never start more graders than the run has cores."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()
    from ...oracles.engine_pool import cores, set_share

    set_share(cores() // max(1, workers))


def _kill_pool(pool: cf.ProcessPoolExecutor) -> None:
    """Stop now: drop queued games and kill workers mid-game (their games were not saved; a re-run
    plays them again)."""
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.kill()


class LocalExecutor:
    def __init__(self, options: ExecOptions) -> None:
        if options.address is not None:
            raise UserError("--address is for the ray backend (add --backend ray)")
        self.options = options

    def session(self) -> AbstractContextManager[None]:
        return nullcontext()

    async def run(
        self, jobs: Iterable[object], context: RunContext, on_result: OnResult, should_start: ShouldStart
    ) -> None:
        """Two lanes: in this process (`--concurrency` games) and, with workers, the pool (4 per worker).
        A job waits for a free slot in its lane before the next one is drawn."""
        workers = max(1, self.options.workers)
        limits = (max(1, self.options.concurrency), workers * 4)
        loop = asyncio.get_running_loop()
        pool = (
            cf.ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(workers,))
            if workers > 1
            else None
        )
        lanes: tuple[set[asyncio.Future[object]], set[asyncio.Future[object]]] = (set(), set())
        source = iter(jobs)
        held: object = None  # a drawn job waiting for a slot in its lane
        exhausted = False
        try:
            while True:
                while not exhausted:
                    if held is None:
                        held = next(source, None)
                        if held is None:
                            exhausted = True
                            break
                    lane = 1 if pool is not None and not uses_model(held) else 0
                    if len(lanes[lane]) >= limits[lane]:
                        break
                    if not should_start():  # asked only when the game would start now (a budget counts it)
                        exhausted = True
                        break
                    if lane:
                        lanes[1].add(asyncio.ensure_future(loop.run_in_executor(pool, _play_in_worker, held)))
                    else:
                        lanes[0].add(asyncio.ensure_future(play(held, context)))
                    held = None
                pending = lanes[0] | lanes[1]
                if not pending:
                    break
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    (lanes[0] if task in lanes[0] else lanes[1]).discard(task)
                    on_result(task.result())
        except BaseException:
            if pool is not None:
                _kill_pool(pool)
                pool = None
            raise
        finally:
            pending = lanes[0] | lanes[1]
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
            if pool is not None:
                pool.shutdown(wait=True)
