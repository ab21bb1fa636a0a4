"""The run driver: the loop every study shares (`plylab run`, `clue run`/`study`, `learn`, paper presets).

A study (`harness.study.Study`) describes its parts: their jobs (drawn lazily, finished ones left
out) and how a result is saved. `run_study` owns the rest, once for all of them: the executor, the
store's lease on the run, the response cache (opened only when a job uses a model), the progress
bar, save-on-result (durable before counted), the budget, games a provider failure left unfinished,
and how every part ends: finished, stopped (a budget, unfinished games), interrupted (Ctrl-C or
SIGTERM), failed (an error) or, on a full disk, one line saying that every saved game is kept and
the same command resumes. One `RunSummary` reports any study.
"""

from __future__ import annotations

import asyncio
import errno
import os
import signal
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Coroutine, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, TypeVar, cast

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..errors import UserError
from ..players import RunContext
from ..players.canonical import printed_run_name
from ..printable import printable
from ..words import count
from .backends import ExecOptions, make_executor
from .budget import RunBudget
from .rows import Lease
from .study import Job, Part, Result, StoreHandle, StoreT, Study, Unfinished
from .text_homes import text_at_home

if TYPE_CHECKING:
    from ..models.cache import ResponseCache

T = TypeVar("T")

LEASE_BEAT = 60.0  # seconds between a holder's heartbeats
# A process on another host cannot be asked if it lives: its lease is free once its heartbeat is this old.
LEASE_STALE = 5 * LEASE_BEAT


@dataclass
class RunSummary:
    """What a run did, for every study: one type, one line (the study adds its own `details`)."""

    run: str
    store: Path
    planned: int
    already: int = 0  # games the store held before
    played: int = 0  # games newly saved
    status: str = "finished"  # finished | stopped | interrupted | failed
    reason: str | None = None  # why a stopped run stopped (a budget, games left unfinished)
    kind: str = "run"
    replayed: int = 0  # games finished again from the response cache (a learning phase resumed)
    unfinished: dict[str, int] = field(default_factory=dict)  # provider failure kind -> games
    details: list[str] = field(default_factory=list)
    unit: str = "game"  # what the study saves, as the line counts it (a suite run: "answer")

    @property
    def saved(self) -> int:
        return self.already + self.played + self.replayed

    def line(self) -> str:
        left = self.planned - self.saved
        tail = "" if left <= 0 else f"; {left} left — re-run the same command to resume"
        if left <= 0 and self.status in (
            "interrupted",
            "stopped",
        ):  # its games saved, not what completes them
            tail = "; not complete — re-run the same command to finish it"
        why = f" ({self.reason})" if self.reason else ""
        again = f", {self.replayed} replayed from the cache" if self.replayed else ""
        extra = "".join(f"; {d}" for d in self.details)
        return printable(  # a run name comes from the user or a plan file: inert on the terminal
            f"{self.kind} '{printed_run_name(self.run)}' {self.status}{why}: {self.saved}/{count(self.planned, self.unit)} saved in "
            f"{self.store} ({self.played} played now, {self.already} already there{again}){extra}{tail}"
        )


def unfinished_reason(unfinished: dict[str, int]) -> str:
    """'3 games unfinished by provider failures (timeout 2, rate_limit 1)'."""
    n = sum(unfinished.values())
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(unfinished.items()))
    return f"{n} game{'s' if n != 1 else ''} unfinished by provider failures ({kinds}); not saved, played again on re-run"


@dataclass
class Tally:
    """What one `play` did: games newly saved, and games finished that the store already held."""

    played: int = 0
    replayed: int = 0
    unfinished: dict[str, int] = field(default_factory=dict)  # provider failure kind -> games


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops a run the way Ctrl-C does (saved games kept, status `interrupted`)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


async def _woken_by_signals(main: Coroutine[object, object, T], seen: set[int]) -> T:
    """Run `main` with the loop woken by any signal, whichever thread the kernel hands it to, and
    every signal that arrived added to `seen`.

    asyncio.run's Ctrl-C handler is a plain `signal.signal` one, which runs in the main thread only
    once it returns to Python; a SIGINT delivered to another thread (the prompt's reader, the lease's
    heartbeat) left the main thread in epoll_wait with nothing scheduled, and the run waited for ever.
    A wakeup fd the loop reads (what `loop.add_signal_handler` sets up) makes it return and run the
    handler. The bytes it carries are the signals' numbers: `Driver.run` reads them to know that a run
    was interrupted, whatever the cancellation became on its way out."""
    if threading.current_thread() is not threading.main_thread():
        return await main
    loop = asyncio.get_running_loop()
    read, write = socket.socketpair()
    read.setblocking(False)
    write.setblocking(False)

    def drain() -> None:
        while True:
            try:
                data = read.recv(4096)
            except (BlockingIOError, InterruptedError):
                return
            if not data:
                return
            seen.update(data)

    loop.add_reader(read.fileno(), drain)
    previous = signal.set_wakeup_fd(write.fileno(), warn_on_full_buffer=False)
    _quiet_after_signals(loop, seen)
    term = _cancel_on_sigterm(loop)
    try:
        return await main
    finally:
        if term is not None:
            signal.signal(signal.SIGTERM, term)
        signal.set_wakeup_fd(previous)
        loop.remove_reader(read.fileno())
        drain()  # a signal that came as the run ended
        read.close()
        write.close()


def _quiet_after_signals(loop: asyncio.AbstractEventLoop, seen: set[int]) -> None:
    """Once a run is interrupted, what its cancelled work leaves behind is not reported: a task a
    library started that fails as asyncio.run cancels it at shutdown would otherwise be logged as an
    'unhandled exception' with its traceback. Before a signal, every error is reported as always."""
    before = loop.get_exception_handler()

    def handler(lp: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
        if seen & {signal.SIGINT, signal.SIGTERM}:
            return
        if before is not None:
            before(lp, context)
        else:
            lp.default_exception_handler(context)

    loop.set_exception_handler(handler)


def _cancel_on_sigterm(
    loop: asyncio.AbstractEventLoop,
) -> signal.Handlers | Callable[..., object] | int | None:
    """While the loop runs, SIGTERM stops the run as asyncio.run's handler stops it on Ctrl-C: the
    study's task is cancelled at its next await (a second SIGTERM raises at once). The handler
    `sigterm_as_interrupt` sets raises KeyboardInterrupt wherever the main thread is: in the middle
    of a library's clean-up, an SQLite commit or the loop's own machinery, where it can end as a
    traceback. Returns the handler to put back (None: SIGTERM was not ours to handle)."""
    if signal.getsignal(signal.SIGTERM) is not signal.default_int_handler:
        return None
    task = asyncio.current_task()
    count = 0

    def on_sigterm(signum: int, frame: object) -> None:
        nonlocal count
        count += 1
        if count == 1 and task is not None and not task.done():
            task.cancel()
            loop.call_soon_threadsafe(lambda: None)  # wake a loop asleep in epoll_wait
            return
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, on_sigterm)


def _born(pid: int) -> str | None:
    """When process `pid` started (clock ticks since boot), where /proc tells."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _alive(pid: int, born: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return born is None or _born(pid) in (None, born)


def storage_failure(exc: BaseException) -> str | None:
    """Why writing the store failed for lack of room (None for any other error)."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return exc.strerror or str(exc)
    if isinstance(exc, sqlite3.DatabaseError):  # OperationalError included
        text = str(exc)
        if "full" in text or "disk I/O error" in text:
            return text
    return None


class Driver:
    """One invocation's run loop; use as a context manager, then `play` studies' jobs inside `run`."""

    def __init__(
        self,
        store_path: str | Path,
        *,
        backend: str = "local",
        options: ExecOptions | None = None,
        progress: bool = True,
        label: str = "",
        total: int = 0,
        stderr: bool = False,
    ) -> None:
        self.store_path = Path(store_path)
        self.backend = backend
        self.options = options or ExecOptions()
        # an unknown backend, a missing extra, --address without ray: one line, nothing written yet
        self.executor = make_executor(backend, self.options)
        self.interrupted = False
        self.tally = Tally()  # the current `play`'s
        self._progress = progress
        self._label, self._total, self._stderr = label, total, stderr
        self._cache: ResponseCache | None = None
        self._stack = ExitStack()

    # lifetime -------------------------------------------------------------------------
    def __enter__(self) -> Driver:
        self._stack.enter_context(sigterm_as_interrupt())
        console = Console(stderr=True) if self._stderr else None
        columns = (
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
        )
        self.bar = self._stack.enter_context(
            Progress(*columns, console=console, disable=not self._progress, transient=False)
        )
        self.task = self.bar.add_task(escape(printable(self._label[:48])), total=self._total)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if self._cache is not None:
                self._cache.close()
            self._stack.close()
        except Exception:  # noqa: BLE001 - closing must not hide the error that ended the run
            if exc is None:
                raise
        why = storage_failure(exc) if exc is not None else None
        if why is not None:
            raise UserError(
                f"cannot write to store '{self.store_path}' ({why}: is the disk full?); every game saved "
                "before is kept: free some space and re-run the same command to resume"
            ) from None

    def open(self, factory: Callable[[Path], T]) -> T:
        """Open a store (or anything with `close`) for the driver's lifetime."""
        opened = factory(self.store_path)
        self._stack.callback(opened.close)  # type: ignore[attr-defined]
        return opened

    def claim(self, store: StoreHandle, name: str) -> None:
        """Take the lease on run `name`, or refuse with one line while a live process holds it.

        A second process on a run in progress would play the same games; a lease whose process is
        dead (even `kill -9`ed) is free, so a killed run always resumes: on this host by asking the
        process, from another host (a store on a shared disk) once its heartbeat is LEASE_STALE old."""
        me = Lease(pid=os.getpid(), host=socket.gethostname(), since=time.time(), born=_born(os.getpid()))

        def free(holder: Lease) -> bool:
            if holder.host == me.host:
                return not _alive(holder.pid, holder.born)
            return time.time() - holder.since >= LEASE_STALE

        holder = store.take_lease(name, me, free)
        if holder is not None:
            seen = time.strftime("%H:%M:%S", time.localtime(holder.since))
            raise UserError(
                f"run '{printed_run_name(name.partition(':')[2])}' is being played by process {holder.pid} on {holder.host} (last "
                f"seen {seen}) in {self.store_path}; wait for it to end or stop it, then re-run to resume"
            )

        stop = threading.Event()
        beat = threading.Thread(target=store.keep_lease, args=(name, me.pid, LEASE_BEAT, stop), daemon=True)
        beat.start()

        def release() -> None:
            stop.set()
            beat.join()
            store.release_lease(name, me.pid)

        self._stack.callback(release)

    def cache(self) -> ResponseCache:
        """The response cache (in the store), opened on first need: classic runs never load the model stack."""
        if self._cache is None:
            from ..models import ResponseCache

            self._cache = ResponseCache.open(self.store_path, homes=text_at_home)
        return self._cache

    def advance(self, n: int = 1) -> None:
        self.bar.advance(self.task, n)

    def label(self, text: str) -> None:
        """What the progress line names (a study's current part)."""
        self.bar.update(self.task, description=text[:48])

    # playing ----------------------------------------------------------------------------
    def run(self, main: Coroutine[object, object, T]) -> T | None:
        """Run the study's coroutine; Ctrl-C or SIGTERM sets `interrupted` (None returned)."""
        seen: set[int] = set()
        try:
            return asyncio.run(_woken_by_signals(main, seen))
        except KeyboardInterrupt:
            self.interrupted = True
            return None
        except BaseException:
            # Ctrl-C cancels the study's task; a library on its way out may turn that cancellation into
            # an error of its own (or a CancelledError asyncio.run does not turn back into Ctrl-C):
            # after a SIGINT or SIGTERM the run was interrupted all the same, and says so in one line
            if seen & {signal.SIGINT, signal.SIGTERM}:
                self.interrupted = True
                return None
            raise

    async def play(
        self,
        jobs: Iterable[Job],
        save: Callable[[Result], bool],
        *,
        model: bool,
        budget: RunBudget | None = None,
        extra: dict[str, object] | None = None,
        concurrency: int | None = None,
        in_order: bool = False,
    ) -> Tally:
        """Play `jobs` (drawn as slots free up), saving each result as it ends: durable first, counted second."""
        context = RunContext(store_path=self.store_path, cache=self.cache() if model else None)
        if extra:
            context.extra.update(extra)
        executor = self.executor
        if concurrency is not None and concurrency != self.options.concurrency:
            executor = make_executor(self.backend, replace(self.options, concurrency=concurrency))
        tally = self.tally = Tally()  # live: a signal ends `play`, and the caller still reads it

        def on_result(result: object) -> None:
            if isinstance(result, Unfinished):  # not saved: the same command plays it again
                tally.unfinished[result.kind] = tally.unfinished.get(result.kind, 0) + 1
                if budget is not None:
                    budget.charge_unfinished()
                return
            result = cast(Result, result)  # what a job of this study plays to (harness.backends.play)
            if save(result):
                tally.played += 1
                if budget is not None:
                    budget.charge(result)
            else:
                tally.replayed += 1
            self.advance()

        def should_start() -> bool:
            if in_order and tally.unfinished:  # later games would build on a missing one
                return False
            return budget.allows_new_game() if budget is not None else True

        await executor.run(jobs, context, on_result, should_start)
        return tally


def exec_options(
    store_path: str | Path,
    *,
    concurrency: int = 1,
    workers: int = 0,
    address: str | None = None,
) -> ExecOptions:
    """How a command's flags become execution options: the one place they are built."""
    return ExecOptions(
        concurrency=concurrency, workers=workers, address=address, run_dir=str(Path(store_path).parent)
    )


def run_study(
    study: Study[StoreT, Job, Result],
    store_path: str | Path,
    *,
    backend: str = "local",
    options: ExecOptions | None = None,
    progress: bool = True,
    stderr: bool = False,
    announce: Callable[[], None] | None = None,
    unit: str = "game",
) -> RunSummary:
    """Play a study whole: claim its run, play each part's missing games, record every part's status.

    A part ends finished (every game saved), stopped (a budget, or games a provider failure left
    unfinished), interrupted (Ctrl-C or SIGTERM) or failed (an error, recorded before it is
    raised). The first part that does not finish ends the study; re-running the same command
    resumes it. The store is the ledger: counts come from what was saved."""
    from ..oracles.engine_process import forget_given_up

    store_path = Path(store_path)
    forget_given_up()  # an engine is given up on for the run that saw it fail, not for the process
    current: list[Part[Job, Result]] = []  # the part being played, for a signal or an error to mark

    with Driver(
        store_path,
        backend=backend,
        options=options or exec_options(store_path),
        progress=progress,
        label=printed_run_name(study.name),  # the run as every table names it
        total=study.planned,
        stderr=stderr,
    ) as driver:
        store = driver.open(study.open_store)
        driver.claim(store, study.lease)
        if announce is not None:  # the run is ours: say what it will do (a refusal said one line only)
            announce()
        summary = RunSummary(study.name, store_path, study.planned, kind=study.kind, unit=unit)

        async def main() -> None:
            with ExitStack() as held:
                joined = False
                parts = study.parts(store, driver)
                try:
                    async for part in parts:
                        current[:] = [part]
                        if part.already < part.games and not joined:
                            # a backend (Ray) joined once for every part, and only once there is work
                            held.enter_context(driver.executor.session())
                            joined = True
                        summary.already += part.already
                        driver.advance(part.already)
                        tally = await driver.play(
                            part.jobs,
                            part.save,
                            model=part.model and part.already < part.games,
                            budget=part.budget,
                            extra=part.extra,
                            concurrency=part.concurrency,
                            in_order=part.in_order,
                        )
                        summary.played += tally.played
                        summary.replayed += tally.replayed
                        driver.tally = Tally()  # counted: a signal in `after` must not count it again
                        for kind, n in tally.unfinished.items():
                            summary.unfinished[kind] = summary.unfinished.get(kind, 0) + n
                        part.complete = part.already + tally.played + tally.replayed >= part.games
                        if part.complete:
                            if part.after is not None:  # what completes it (rule extraction); raises: failed
                                await part.after()
                            part.finish("finished", None)
                        else:
                            summary.status = "stopped"
                            if tally.unfinished:
                                summary.reason = unfinished_reason(tally.unfinished)
                            elif part.budget is not None:
                                summary.reason = part.budget.reason
                            part.finish("stopped", summary.reason)
                        current.clear()
                        if not part.complete:
                            break
                finally:
                    await parts.aclose()

        try:
            driver.run(main())
        except Exception as exc:
            if current and storage_failure(exc) is None:
                current[0].finish("failed", f"{type(exc).__name__}: {exc}"[:500])
            raise
        if driver.interrupted:
            summary.status, summary.reason = "interrupted", None
            if current:  # what the part saved before the signal
                summary.played += driver.tally.played
                summary.replayed += driver.tally.replayed
                current[0].finish("interrupted", None)
        summary.details = study.details()
    return summary
