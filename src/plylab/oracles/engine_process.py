"""One engine process client that can neither hang a run nor outlive it: UCI, GTP and gnubg's lines.

Every engine plylab runs (Stockfish and Fairy-Stockfish over UCI, GNU Go over GTP, gnubg's embedded
Python reading JSON lines) is a `ProcessClient`: an argv, a handshake, a deadline on every call and
the same restart and failure rules, whatever its protocol:

- a wall-clock deadline on every call: the handshake, each search (`deadline_for`: a floor plus
  time for the node count at a rate far below a loaded core's), each GTP command or gnubg batch
  (its `timeout`), quitting; PLYLAB_ENGINE_TIMEOUT replaces them all;
- any failure (no answer in time, the process died, an answer that is not a legal move, a broken
  protocol) kills the process, with its process group, and starts a new one with the same settings,
  `RESTARTS` times;
- after that the engine is the world's failure (`give_up`): `ProviderFailure("engine", ...)`, so the
  game is left unfinished, not saved, and the same command plays it again (harness.backends). One
  line on stderr says why, once per engine; later calls in the process fail at once instead of
  waiting again.

Two transports: `EngineProcess` for UCI and `TextProcess` for line protocols (oracles/gtp.py's `Gtp`,
oracles/gnubg.py's `GnubgProcess`), as OpenSpiel's one GTPBot serves any GTP engine. python-chess
speaks UCI, and its `SimpleEngine` is not enough on its own when an engine misbehaves: a search by
nodes or depth has no deadline, a command that fails after its first answer (a `bestmove zz99` in an
analysis) is never settled, an engine killed mid-command can leave its background thread (not a
daemon) waiting, so the interpreter never exits, and a lying engine's answer is logged as a
traceback. So UCI runs here on an event loop of our own, in a daemon thread. A line protocol needs
no library: a pipe read against its deadline.

Every live engine is killed when the process exits (`close_all`), so none is left behind. The one
pool that lends them is oracles/engine_pool.py's `ProcessPool`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import ProviderFailure, UserError

if TYPE_CHECKING:
    import chess
    import chess.engine

T = TypeVar("T")

RESTARTS = 2  # a failed call is tried on a fresh process this many more times
HANDSHAKE = 30.0  # seconds for `uci` ... `uciok`, and for every call that is not a search
FLOOR = 60.0  # seconds every search may take, whatever its limit
SLOW_NPS = 50_000  # nodes a second a search is allowed at worst (one core searches ~1M)
DEPTH_SECONDS = 1800.0  # a search by depth alone (no node count to scale by)
QUIT = 2.0  # seconds an engine has to exit after `quit` before it is killed
TIMEOUT_ENV = "PLYLAB_ENGINE_TIMEOUT"

# python-chess logs a malformed answer (and a bad pv) itself: a traceback on stderr for what is
# handled here. Its records stay available to a handler a user attaches.
_log = logging.getLogger("chess.engine")
_log.addHandler(logging.NullHandler())
_log.propagate = False

_LIVE: weakref.WeakSet[ProcessClient] = weakref.WeakSet()
_GAVE_UP: dict[str, str] = {}  # engine path -> why it was given up on (this process)
_GIVE_UP_LOCK = threading.Lock()  # a pool's processes of one engine give up with one line between them


def override() -> float | None:
    """PLYLAB_ENGINE_TIMEOUT: seconds for every engine call, in place of the computed deadlines."""
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < 10**7:
        raise UserError(f"{TIMEOUT_ENV}='{text}' is not accepted; give seconds, a number above 0")
    return seconds


def deadline_for(limit: chess.engine.Limit | None) -> float:
    """Seconds one call may take: a search by nodes FLOOR plus its nodes at SLOW_NPS, by depth alone
    DEPTH_SECONDS, anything else HANDSHAKE; PLYLAB_ENGINE_TIMEOUT replaces them all."""
    forced = override()
    if forced is not None:
        return forced
    if limit is None:
        return HANDSHAKE
    if limit.nodes:
        return FLOOR + limit.nodes / SLOW_NPS
    return DEPTH_SECONDS if limit.depth else HANDSHAKE


class EngineFailure(Exception):
    """One call failed (the reason is the message): no answer in time, the process died, an answer
    that breaks the protocol. The process is replaced and the call tried again."""


class EngineRefusal(EngineFailure):
    """The engine answered, refusing the command (GTP's `?`): a live engine, not restarted for it."""


def give_up(name: str, path: str, tries: int, why: str) -> ProviderFailure:
    """The one failure rule of every engine (UCI, GTP, gnubg): after `tries` failed tries the engine
    is given up on in this process, one line on stderr says why (once per engine, however many of
    its processes fail), and the game is left unfinished (a world's failure: the same command
    resumes it). Later calls to the engine fail at once with the same line (`given_up`)."""
    message = (
        f"{name} ({path}) failed {tries} time{'s' if tries > 1 else ''} ({why}); the game is left "
        f"unfinished: re-run the same command to resume"
    )
    with _GIVE_UP_LOCK:  # another process of a pool may have given up on it meanwhile
        if path in _GAVE_UP:
            return ProviderFailure("engine", _GAVE_UP[path])
        _GAVE_UP[path] = message
    print(f"plylab: {message}", file=sys.stderr)
    return ProviderFailure("engine", message)


def forget_given_up() -> None:
    """A new run tries every engine afresh: what an earlier run in this process gave up on (a stuck
    engine then, a test's fake one) must not leave this run's games unfinished without a try."""
    with _GIVE_UP_LOCK:
        _GAVE_UP.clear()


def given_up(path: str) -> ProviderFailure | None:
    """The failure of an engine this process gave up on (`give_up`); None while it is in use."""
    message = _GAVE_UP.get(path)
    return None if message is None else ProviderFailure("engine", message)


class ProcessClient(ABC):
    """What every engine process shares, whatever its protocol (UCI here, GTP and gnubg's lines in
    `TextProcess`): its name and path, the restart rule (a failed call is tried on a fresh process
    `restarts` more times), the one failure rule after that (`give_up`), and closing for good.
    A protocol gives `_running`, `_start` (the process and its handshake) and `_kill`."""

    name: str
    path: str
    restarts: int = RESTARTS
    _closed: bool = False

    @abstractmethod
    def _running(self) -> bool: ...

    @abstractmethod
    def _start(self) -> None: ...

    @abstractmethod
    def _kill(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    def _with_restarts(self, attempt: Callable[[], T]) -> T:
        """`attempt()` on a live process; a failure (EngineFailure) kills it and tries again on a fresh
        one, `restarts` times; then `give_up`. A refusal (EngineRefusal) is the engine's answer and
        goes to the caller as it is."""
        if (failure := given_up(self.path)) is not None:
            raise failure
        why = ""
        for _ in range(1 + self.restarts):
            if self._closed:
                raise ProviderFailure("engine", f"{self.name} ({self.path}) was closed")
            if (failure := given_up(self.path)) is not None:  # another process of its pool gave up
                raise failure
            try:
                if not self._running():
                    self._start()
                return attempt()
            except EngineRefusal:
                raise
            except EngineFailure as exc:
                why = str(exc)
                self._kill()
        raise give_up(self.name, self.path, 1 + self.restarts, why)


class EngineProcess(ProcessClient):
    """A UCI engine child: started on creation, every call bounded, restarted on failure.

    `defaults` are set where the engine has the option (Threads, Hash); `configure`'s settings are
    remembered and set again on every restart, so a restarted engine is the same engine."""

    def __init__(self, name: str, path: str, defaults: Mapping[str, int] | None = None) -> None:
        self.name, self.path = name, path
        self._defaults = dict(defaults or {})
        self._settings: dict[str, Any] = {}
        self._lock = threading.RLock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._transport: asyncio.SubprocessTransport | None = None
        self._protocol: chess.engine.UciProtocol | None = None
        self._fault: asyncio.Future[BaseException] | None = None
        self._closed = False
        self.options: Mapping[str, chess.engine.Option] = {}
        self.id: Mapping[str, str] = {}
        _LIVE.add(self)
        self._call("start", lambda protocol: _nothing(), None)

    # the calls ----------------------------------------------------------------------------
    def configure(self, settings: Mapping[str, Any]) -> None:
        self._settings.update(settings)
        self._call("configure", lambda protocol: protocol.configure(dict(settings)), None)

    def play(self, board: chess.Board, limit: chess.engine.Limit) -> chess.Move | None:
        """The engine's move (from a cleared hash: a fresh game object sends `ucinewgame`)."""
        result = self._call("search", lambda p: p.play(board, limit, game=object()), limit)
        return result.move

    def analyse(self, board: chess.Board, limit: chess.engine.Limit) -> chess.engine.InfoDict:
        """The engine's analysis of `board` (from a cleared hash), as python-chess reports it."""
        return self._call("search", lambda p: p.analyse(board, limit, game=object()), limit)

    def close(self) -> None:
        """Ask the engine to quit; kill it (and its process group) if it has not within QUIT seconds.
        A closed engine stays closed: a call after (one a grading thread waited on) is refused, never
        a new process that nothing would close."""
        self._closed = True
        with self._lock:
            if self._protocol is not None and self._transport is not None:
                try:
                    self._run(lambda p: p.quit(), QUIT, "quit")
                except Exception:  # noqa: BLE001, S110 - killed below either way
                    pass
            self._kill()
        _LIVE.discard(self)

    def pid(self) -> int | None:
        """The live process's id; None between a failure and its restart, and after `close`."""
        transport = self._transport
        if transport is None or transport.get_returncode() is not None:
            return None
        return int(transport.get_pid())

    # restarts -------------------------------------------------------------------------------
    def _call(
        self,
        what: str,
        make: Callable[[chess.engine.UciProtocol], Awaitable[T]],
        limit: chess.engine.Limit | None,
    ) -> T:
        """`make(protocol)` on a live engine within its deadline; on failure a fresh process, RESTARTS
        times; then ProviderFailure (the game is left unfinished)."""
        seconds = deadline_for(limit)
        with self._lock:
            return self._with_restarts(lambda: self._run(make, seconds, what))

    def _running(self) -> bool:
        return self._protocol is not None

    def _start(self) -> None:
        """A new process and its handshake, then the defaults and the remembered settings."""
        import chess.engine

        loop = asyncio.new_event_loop()
        loop.set_exception_handler(self._on_loop_error)
        thread = threading.Thread(target=loop.run_forever, name=f"{self.name} engine", daemon=True)
        thread.start()
        self._loop, self._thread = loop, thread

        async def spawn() -> None:
            # its own process group: a Ctrl-C at the terminal stops the run, which then closes the
            # engine; the engine does not die under a search (which would read as a failure)
            transport, protocol = await chess.engine.UciProtocol.popen(
                [self.path], setpgrp=True, stderr=subprocess.DEVNULL
            )
            self._transport, self._protocol = transport, protocol

        try:
            asyncio.run_coroutine_threadsafe(spawn(), loop).result(HANDSHAKE)
        except OSError as exc:  # not executable, gone since it was found
            raise EngineFailure(f"start: {exc.strerror or exc}") from None
        except concurrent.futures.TimeoutError:
            raise EngineFailure(f"start: no process within {HANDSHAKE:g} s") from None
        self._run(lambda p: p.initialize(), deadline_for(None), "handshake")
        protocol = self._protocol
        assert protocol is not None
        self.options, self.id = dict(protocol.options), dict(protocol.id)
        settings = {k: v for k, v in self._defaults.items() if k in protocol.options} | self._settings
        if settings:
            self._run(lambda p: p.configure(settings), deadline_for(None), "configure")

    def _run(self, make: Callable[[chess.engine.UciProtocol], Awaitable[T]], seconds: float, stage: str) -> T:
        """One call on the current process, within `seconds`; any failure is `EngineFailure`."""
        import chess.engine

        loop, protocol = self._loop, self._protocol
        if loop is None or protocol is None:
            raise EngineFailure("not running")

        async def guarded() -> T:
            # a failure python-chess reports to the loop (an answer after a preliminary result) ends
            # the call at once instead of at its deadline
            fault = self._fault = loop.create_future()
            task = asyncio.ensure_future(make(protocol))
            done, _ = await asyncio.wait({task, fault}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
            if task in done:
                return task.result()
            task.cancel()
            if fault in done:
                raise fault.result()
            raise TimeoutError

        at = f"{stage}: "
        try:
            return asyncio.run_coroutine_threadsafe(guarded(), loop).result(seconds + 5.0)
        except (TimeoutError, concurrent.futures.TimeoutError):
            raise EngineFailure(
                f"{at}no answer within {seconds:g} s ({TIMEOUT_ENV} sets the deadline)"
            ) from None
        except chess.engine.EngineTerminatedError:
            code = self._transport.get_returncode() if self._transport is not None else None
            raise EngineFailure(
                f"{at}the engine exited" + (f" (code {code})" if code is not None else "")
            ) from None
        except (chess.engine.EngineError, ValueError, OSError, RuntimeError) as exc:
            raise EngineFailure(f"{at}{_first_line(exc)}") from None

    def _on_loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """python-chess's failures outside a call's result: they end the call now, never print."""
        fault = self._fault
        if fault is not None and not fault.done():
            exc = context.get("exception")
            fault.set_result(
                exc if isinstance(exc, BaseException) else RuntimeError(context.get("message", ""))
            )

    def _kill(self) -> None:
        """SIGKILL the engine's process group, wait for it to be reaped, and stop the loop's thread."""
        transport, loop, thread = self._transport, self._loop, self._thread
        self._transport = self._protocol = self._loop = self._thread = None
        self._fault = None
        if transport is not None and loop is not None:
            if transport.get_returncode() is None:
                try:
                    os.killpg(transport.get_pid(), signal.SIGKILL)  # the engine leads its own group
                except (ProcessLookupError, PermissionError):
                    pass
            # asyncio's child watcher reaps it and tells the loop; closing the transport before
            # that would reap it here first (Popen.poll), and the watcher would then warn on stderr
            end = time.monotonic() + QUIT
            while transport.get_returncode() is None and time.monotonic() < end:
                time.sleep(0.01)
            loop.call_soon_threadsafe(transport.close)
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)
            if thread is not None:
                thread.join(QUIT)
            if thread is None or not thread.is_alive():
                loop.close()


async def _nothing() -> None:
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class TextProcess(ProcessClient):
    """An engine that speaks lines over pipes (GTP; gnubg's embedded-Python server): `argv` started
    with its `handshake`, every read within `timeout` seconds (PLYLAB_ENGINE_TIMEOUT replaces it),
    and `call` running a whole exchange under the restart and failure rules every engine shares.
    `starts` counts the processes started, so a caller that keeps state in the engine (GNU Go's
    board) knows when a fresh one needs it again."""

    def __init__(self, name: str, argv: list[str], timeout: float, restarts: int = RESTARTS) -> None:
        self.name, self.path, self.argv = name, argv[0], argv
        self.timeout, self.restarts = override() or timeout, restarts
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._buffer = b""
        self._closed = False
        self._lock = threading.RLock()
        _LIVE.add(self)

    def handshake(self) -> None:
        """What a fresh process is asked before its first call (nothing unless a protocol says)."""

    def quit_command(self) -> str | None:
        """The line that asks the engine to quit (None: its input is closed)."""
        return None

    def call(self, attempt: Callable[[], T]) -> T:
        """`attempt()` (a whole exchange with `ask`, `write` and `read`) on a live process, restarted
        on failure, then the game left unfinished (ProviderFailure, one line)."""
        with self._lock:
            return self._with_restarts(attempt)

    def _running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _start(self) -> None:
        try:  # its own process group, as a UCI engine's: a Ctrl-C stops the run, which closes it
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                bufsize=0,
                process_group=0,
            )
        except OSError as exc:
            raise EngineFailure(f"start: {exc.strerror or exc}") from None
        self._buffer = b""
        self.starts += 1
        self.handshake()

    def write(self, line: str) -> None:
        """One line to the engine; EngineFailure where it is gone."""
        if not self._running():
            self._start()
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise EngineFailure(f"the engine is gone ({exc})") from None

    def read(self, end: str, what: str) -> str:
        """The engine's output up to `end` (not included), within the deadline; EngineFailure where it
        exits or does not answer in time."""
        assert self.proc is not None and self.proc.stdout is not None
        stop = end.encode()
        deadline = time.monotonic() + self.timeout
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            while stop not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise EngineFailure(
                        f"{what}: no answer within {self.timeout:g} s ({TIMEOUT_ENV} sets the deadline)"
                    )
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    code = self.proc.wait()
                    raise EngineFailure(f"{what}: the engine exited (code {code})")
                self._buffer += chunk.replace(b"\r", b"")
        answer, self._buffer = self._buffer.split(stop, 1)
        return answer.decode(errors="replace")

    def ask(self, line: str, end: str) -> str:
        """`line` sent, the answer up to `end` read (`what` in a failure: the line)."""
        self.write(line)
        return self.read(end, f"'{line[:40]}'")

    def pid(self) -> int | None:
        """The live process's id; None between a failure and its restart, and after `close`."""
        return self.proc.pid if self.proc is not None and self._running() else None

    def _kill(self) -> None:
        """SIGKILL the engine's process group and reap it."""
        proc, self.proc = self.proc, None
        if proc is not None:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    proc.kill()
            proc.wait()

    def close(self) -> None:
        """Ask the engine to quit (or close its input); kill it if it has not within QUIT seconds. A
        closed engine stays closed."""
        self._closed = True
        with self._lock:
            proc = self.proc
            if proc is not None and proc.poll() is None and proc.stdin is not None:
                try:
                    command = self.quit_command()
                    if command is not None:
                        proc.stdin.write(command.encode() + b"\n")
                    proc.stdin.close()
                    proc.wait(timeout=QUIT)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._kill()
        _LIVE.discard(self)


def close_all() -> None:
    """Every live engine of this process closed (at exit: none is left behind)."""
    for process in list(_LIVE):
        process.close()
