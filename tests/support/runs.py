"""Long runs in child processes, stopped by a signal: start, wait for saved games, stop, read back."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STARTED: list[subprocess.Popen[str]] = []


def foreground() -> None:
    """The child takes Ctrl-C as a person's terminal would send it: a suite started in the background
    by a shell without job control (`make test &`, two suites at once) inherits SIGINT ignored, which
    a run rightly keeps ignoring (POSIX: a background job is not the terminal's to interrupt). Every
    child a test signals is started with this (`preexec_fn`)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def as_a_background_suite() -> Iterator[None]:
    """This process ignores SIGINT, as a suite started by `make test &` does, while a child is started
    in the block: a child that is to take Ctrl-C must not inherit that (see `foreground`)."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def spawn(argv: list[str], **kwargs) -> subprocess.Popen[str]:
    """Start `python argv...` from the repository root (so `tests.` modules import) with faulthandler on."""
    proc = subprocess.Popen(
        [sys.executable, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=kwargs.pop("cwd", ROOT),
        preexec_fn=kwargs.pop("preexec_fn", foreground),
        env={**os.environ, "PYTHONFAULTHANDLER": "1", **kwargs.pop("env", {})},  # SIGABRT: every stack
        **kwargs,
    )
    STARTED.append(proc)
    return proc


def plylab(*args: str, **kwargs) -> subprocess.Popen[str]:
    return spawn(["-m", "plylab", *args], **kwargs)


@pytest.fixture(autouse=True)
def no_run_outlives_its_test() -> Iterator[None]:
    """A test that fails before it stops its run (a billion games) must not leave it playing."""
    yield
    while STARTED:
        proc = STARTED.pop()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def stop(proc: subprocess.Popen[str], sig: int) -> tuple[str, str]:
    """Signal a run and collect its output; a run that does not end within a minute fails the test
    with the stack it is stuck in (faulthandler's dump on SIGABRT), not a bare time-out."""
    proc.send_signal(sig)
    try:
        return proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        _, err = proc.communicate(timeout=30)
        pytest.fail(f"the run did not end within 60 s of signal {sig}; it was at:\n{err[-6000:]}")


def count(store: Path, table: str = "games") -> int:
    if not store.exists():
        return 0
    try:
        return int(sqlite3.connect(store).execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


def wait_for_games(
    proc: subprocess.Popen[str], store: Path, n: int, table: str = "games", timeout: float = 120
) -> None:
    deadline = time.monotonic() + timeout
    while count(store, table) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"fewer than {n} games saved after {timeout} s"
        time.sleep(0.05)
