"""The one pool of engine processes (Stockfish, Fairy-Stockfish, gnubg) and how many grade at once:
one per core the run may use, each one thread.

`ProcessPool` lends its processes one call at a time; `oracles.engine.EnginePool` (UCI searches) and
`oracles.gnubg.GnubgPool` (gnubg's batches) are it with their engine's call. This module also sizes
every pool (and is what the backends ask).

One Stockfish process searching one position at a time is what grading a chess move costs (a
search at the default 20,000 nodes takes one core about 34 ms), so a run grading with one process
grades one position at a time however many games are in flight. A pool holds up to `size`
processes of one engine and lends each search to an idle one, starting another (up to `size`)
only when every one is busy, so a run that grades one position at a time still holds one process.

A score never depends on which process made it: every process runs one thread (`Threads=1`) with
a small hash that is cleared before every search (`ucinewgame`: oracles/engine_process.py), so a
search by nodes or depth is the same search in any process; the same positions get the same
evaluations whatever the pool's size (tests/oracles/test_engine_pool.py). Every process keeps its
own deadlines and restarts (EngineProcess): when one gives an engine up, every call to that engine
fails at once, with one line between them, and the game is left unfinished, as with one process.

The size: PLYLAB_ENGINES (a number of processes), else the cores this process may use
(`os.sched_getaffinity`: a container's or `taskset`'s limit), divided among the run's worker
processes where it has some (the local backend's `--workers`; a Ray worker takes the CPUs Ray gave
its task), so a run never starts more graders than it has cores.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Generic, Protocol, TypeVar

from ..errors import ProviderFailure, UserError

ENGINES_ENV = "PLYLAB_ENGINES"
MAX_ENGINES = 1024
_share: list[int] = []  # the cores this process was given by its backend (a worker's share), if any


def cores() -> int:
    """The cores this process may run on (its affinity mask: a container's or taskset's limit)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def set_share(n: int) -> None:
    """A worker process's share of the machine (cores // workers, or the CPUs Ray gave its task):
    the pool's default size in this process from now on."""
    _share[:] = [max(1, int(n))]


def pool_size() -> int:
    """How many engine processes grade at once in this process: PLYLAB_ENGINES, else this process's
    share of the cores (`set_share`), else every core it may use."""
    text = os.environ.get(ENGINES_ENV, "").strip()
    if text:
        try:
            n = int(text)
        except ValueError:
            n = 0
        if not 1 <= n <= MAX_ENGINES:
            raise UserError(
                f"{ENGINES_ENV}='{text}' is not accepted; give the number of engine processes that "
                f"grade at once, 1 to {MAX_ENGINES} (default: the cores the run may use, {cores()} here)"
            )
        return n
    return _share[0] if _share else cores()


class Lent(Protocol):
    """What a pool needs of an engine process."""

    def pid(self) -> int | None: ...

    def close(self) -> None: ...


P = TypeVar("P", bound=Lent)


class ProcessPool(Generic[P]):
    """Up to `size` processes of one engine (`make` makes one; `first`, one already made), lent one
    call at a time: an idle one, else a new one while fewer than `size` run (made outside the lock: a
    handshake takes a while), else the first to come back; so a run that grades one position at a
    time holds one. `executor`: `size` threads on which graders run. Each process keeps its own
    deadlines and restarts (oracles/engine_process.py), so a failure is the same one line in a pool."""

    def __init__(
        self, name: str, path: str, make: Callable[[], P], size: int | None = None, first: P | None = None
    ) -> None:
        self.name, self.path, self._make = name, path, make
        self.size = pool_size() if size is None else max(1, size)
        self._cond = threading.Condition()
        self._idle: list[P] = [] if first is None else [first]
        self._all: list[P] = list(self._idle)
        self._starting = 0
        self._closed = False
        self.executor = ThreadPoolExecutor(max_workers=self.size, thread_name_prefix=f"{name} grader")

    def _refused(self) -> ProviderFailure:
        return ProviderFailure("engine", f"{self.name} ({self.path}) was closed")

    @property
    def started(self) -> int:
        """Processes made so far, at most `size`."""
        with self._cond:
            return len(self._all)

    def pids(self) -> list[int]:
        """The live processes' ids (for tests and the bench: none is left after `close`)."""
        with self._cond:
            return [p for e in self._all if (p := e.pid()) is not None]

    @contextmanager
    def lend(self) -> Iterator[P]:
        """An idle process for one call."""
        with self._cond:
            while True:
                if self._closed:
                    raise self._refused()
                if self._idle:
                    process: P | None = self._idle.pop()
                    break
                if len(self._all) + self._starting < self.size:
                    process = None
                    self._starting += 1
                    break
                self._cond.wait()
        if process is None:
            try:
                process = self._make()
            finally:
                with self._cond:
                    self._starting -= 1
                    self._cond.notify()
            with self._cond:
                self._all.append(process)
                if self._closed:
                    process.close()
                    raise self._refused()
        try:
            yield process
        finally:
            with self._cond:
                self._idle.append(process)
                self._cond.notify()

    def close(self) -> None:
        """Every process closed (a call in progress is waited for, within its deadline); queued
        grading dropped. Nothing of the pool outlives this."""
        with self._cond:
            self._closed = True
            processes = list(self._all)
            self._cond.notify_all()
        self.executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.close()
