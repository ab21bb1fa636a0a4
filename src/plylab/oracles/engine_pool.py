"""Engine processes that grade positions concurrently: one per core the run may use, each one thread.

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
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ..errors import ProviderFailure, UserError

if TYPE_CHECKING:
    import chess

    from .engine import Engine, Evaluation, Limit

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


class EnginePool:
    """Up to `size` processes of one engine, lent one search at a time; threads to grade on.

    The first process starts now (a missing or broken engine is said before any game, and its
    name and version are the grades' source); the others when a search finds every one busy.
    `executor`: `size` threads on which graders run, so that many positions are searched at once.
    """

    def __init__(self, name: str, path: str, size: int | None = None) -> None:
        from .engine import Engine

        self.name, self.path = name, path
        self.size = pool_size() if size is None else max(1, size)
        self._cond = threading.Condition()
        self._idle: list[Engine] = []
        self._engines: list[Engine] = []
        self._starting = 0
        self._closed = False
        first = Engine(name, path)
        self._engines.append(first)
        self._idle.append(first)
        self.ident, self.version = first.ident, first.version
        self.executor = ThreadPoolExecutor(max_workers=self.size, thread_name_prefix=f"{name} grader")

    @property
    def started(self) -> int:
        """Processes started so far (live or restarted), at most `size`."""
        with self._cond:
            return len(self._engines)

    def pids(self) -> list[int]:
        """The live processes' ids (for tests and the bench: none is left after `close`)."""
        with self._cond:
            return [p for e in self._engines if (p := e.pid()) is not None]

    @contextmanager
    def engine(self) -> Iterator[Engine]:
        """An idle process for one search: one already started, else a new one while fewer than
        `size` run, else the first to come back."""
        from .engine import Engine

        with self._cond:
            while True:
                if self._closed:
                    raise ProviderFailure("engine", f"{self.name} ({self.path}) was closed")
                if self._idle:
                    engine: Engine | None = self._idle.pop()
                    break
                if len(self._engines) + self._starting < self.size:
                    engine = None
                    self._starting += 1
                    break
                self._cond.wait()
        if engine is None:  # started outside the lock: a handshake takes a while
            try:
                engine = Engine(self.name, self.path)
            finally:
                with self._cond:
                    self._starting -= 1
                    self._cond.notify()
            with self._cond:
                self._engines.append(engine)
                if self._closed:
                    engine.close()
                    raise ProviderFailure("engine", f"{self.name} ({self.path}) was closed")
        try:
            yield engine
        finally:
            with self._cond:
                self._idle.append(engine)
                self._cond.notify()

    def analyse(self, board: chess.Board, limit: Limit) -> Evaluation:
        """The position searched by whichever process is idle (the same search in any of them)."""
        with self.engine() as engine:
            return engine.analyse(board, limit)

    def close(self) -> None:
        """Every process closed (a search in progress is waited for, within its deadline); queued
        grading dropped. Nothing of the pool outlives this."""
        with self._cond:
            self._closed = True
            engines = list(self._engines)
            self._cond.notify_all()
        self.executor.shutdown(wait=False, cancel_futures=True)
        for engine in engines:
            engine.close()
