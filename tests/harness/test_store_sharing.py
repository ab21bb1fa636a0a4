"""A store a run writes through several connections stays readable, live, by other processes.

A second connection used to re-check the new file with a plain `open()`; closing it dropped the
process's POSIX locks, so the next outside reader took itself for the last connection and removed
the -wal the run was still appending to: its later games were invisible to every other process
(a watcher, `plylab report` mid-run) and lost if the run was killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from plylab.harness.store import connect, open_read_only


def _count_elsewhere(path: Path) -> int:
    """The runs another process sees (it opens the store, reads, and closes: the last to leave?)."""
    code = f"import sqlite3; print(sqlite3.connect({str(path)!r}).execute('SELECT COUNT(*) FROM runs').fetchone()[0])"
    return int(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    )


def _add_run(conn, name: str) -> None:
    conn.execute(
        "INSERT INTO runs(name, kind, seed, plan, status, created, updated) "
        "VALUES (?, 'play', 0, '{}', 'running', 0, 0)",
        (name,),
    )


def test_every_commit_of_a_new_store_is_seen_by_a_reader_in_another_process(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    writer = connect(path)  # creates the store
    cache = connect(path)  # the response cache's own connection, as a model run opens it
    reader = open_read_only(path)  # and a report read in the same process
    for n in range(1, 4):
        _add_run(writer, f"r{n}")
        assert _count_elsewhere(path) == n
    reader.close()
    cache.close()
    writer.close()


def test_games_committed_before_a_kill_survive_it(tmp_path: Path) -> None:
    """The writer is killed (no close, no checkpoint): what it committed is in the store."""
    path = tmp_path / "s.sqlite"
    code = (
        "import os, sys, time\n"
        "from plylab.harness.store import connect\n"
        f"w = connect({str(path)!r}); c = connect({str(path)!r})\n"
        "for n in range(3):\n"
        '    w.execute("INSERT INTO runs(name, kind, seed, plan, status, created, updated) '
        "VALUES (?, 'play', 0, '{}', 'running', 0, 0)\", (f'r{n}',))\n"
        "    print(n, flush=True); sys.stdin.readline()\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        for n in range(3):
            assert proc.stdout.readline().strip() == str(n)
            assert _count_elsewhere(path) == n + 1  # a watcher polls between commits
            proc.stdin.write("\n")
            proc.stdin.flush()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert _count_elsewhere(path) == 3
