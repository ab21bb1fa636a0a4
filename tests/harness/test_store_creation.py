"""A new store appears whole or not at all, and says which shape it has.

A store is made under a temporary name in its folder and linked into place once its tables exist, so
a Ctrl-C or `kill -9` at the moment of creation leaves no store (or a complete one) and the same
command then succeeds. A file an older interruption left blank (empty, or SQLite's first 4,096 bytes
and no table) is made into a store by every command that writes one. The store's shape is its
`PRAGMA user_version`: an older store is upgraded once when opened, a newer one refused in one line.

The interruption lands at the exact moment by a `sitecustomize` in the child (Python imports it at
start-up): it signals the process as the store's first table is about to be created.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from plylab import db
from plylab.harness.store import Store
from tests.support.runs import ROOT, foreground

AT_THE_FIRST_TABLE = """
import os, sqlite3

SIGNAL = int(os.environ["PLYLAB_TEST_SIGNAL"])
FIRST = "CREATE TABLE IF NOT EXISTS runs"
real = sqlite3.connect


def connect(*args, **kwargs):
    base = kwargs.pop("factory", sqlite3.Connection)

    class Interrupted(base):
        def execute(self, sql, *rest):
            if FIRST in sql:
                os.kill(os.getpid(), SIGNAL)
            return super().execute(sql, *rest)

        def executescript(self, script):
            if FIRST in script:
                os.kill(os.getpid(), SIGNAL)
            return super().executescript(script)

    return real(*args, factory=Interrupted, **kwargs)


sqlite3.connect = connect
"""

RUN = ("run", "--game", "nim", "--player", "random", "--opponent", "random", "--games", "2", "-q")


def _plylab(tmp_path: Path, *args: str, hook: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    if hook is not None:
        site = tmp_path / "site"
        site.mkdir(exist_ok=True)
        (site / "sitecustomize.py").write_text(AT_THE_FIRST_TABLE)
        env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
        env["PLYLAB_TEST_SIGNAL"] = str(hook)
    return subprocess.run(
        [sys.executable, "-m", "plylab", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
        preexec_fn=foreground,
    )


def _command(kind: str, tmp_path: Path, store: Path) -> tuple[str, ...]:
    if kind == "run":
        return (*RUN, "--store", str(store))
    suite = tmp_path / "t.jsonl"
    if not suite.exists():
        built = _plylab(
            tmp_path, "suite", "build", "t", "--game", "tic_tac_toe", "-n", "2", "--out", str(suite)
        )
        assert built.returncode == 0, built.stderr
    return ("suite", "run", str(suite), "--player", "random", "--store", str(store), "-q")


def _tables(store: Path) -> set[str]:
    conn = sqlite3.connect(store)
    try:
        return {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        conn.close()


def _saved(kind: str, done: subprocess.CompletedProcess[str]) -> bool:
    return done.returncode == 0 and ("2/2 games saved" if kind == "run" else "saved") in done.stdout


@pytest.mark.slow  # four child processes a case, each importing the command
@pytest.mark.parametrize("kind", ["run", "suite run"])
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["kill -9", "ctrl-c"])
def test_a_store_interrupted_as_it_is_created_is_made_by_the_same_command(
    tmp_path: Path, kind: str, sig: int
) -> None:
    """It was a 4,096-byte file (SQLite's header, no table) that the same command refused for good:
    "not a plylab store"."""
    store = tmp_path / "s.sqlite"
    command = _command(kind, tmp_path, store)
    first = _plylab(tmp_path, *command, hook=sig)
    assert first.returncode != 0 and "Traceback" not in first.stderr, first.stderr
    assert not store.exists() or {"runs", "games", "moves"} <= _tables(store)  # never half a store
    again = _plylab(tmp_path, *command)
    assert _saved(kind, again), again.stdout + again.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".s.sqlite")) == []  # swept


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["run", "suite run"])
@pytest.mark.parametrize("left", ["empty", "header only"])
def test_a_blank_file_an_older_interruption_left_becomes_the_store(
    tmp_path: Path, kind: str, left: str
) -> None:
    """`suite run` refused an empty file that `run` accepted; both refused SQLite's first page alone."""
    store = tmp_path / "s.sqlite"
    if left == "empty":
        store.write_bytes(b"")
    else:
        conn = sqlite3.connect(store)
        conn.execute("PRAGMA journal_mode=WAL")  # what SQLite writes before the first table
        conn.close()
        assert store.stat().st_size == 4096
    done = _plylab(tmp_path, *_command(kind, tmp_path, store))
    assert _saved(kind, done), done.stdout + done.stderr


def test_a_temporary_file_a_killed_creation_left_is_removed_and_the_store_made(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    pid = int(dead.stdout)  # a process that has ended
    left = tmp_path / f".s.sqlite.{pid}.0badc0de{db.CREATING}"
    left.write_bytes(b"SQLite format 3\x00" + b"\x00" * 4080)
    Path(f"{left}-wal").write_bytes(b"")
    Store(store).close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]
    assert {"runs", "games", "moves"} <= _tables(store)


def test_a_new_store_has_the_schema_version_and_an_older_one_is_upgraded_once(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    Store(store).close()
    assert sqlite3.connect(store).execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION
    with sqlite3.connect(store) as conn:  # as a store from before versions: no version, a column missing
        conn.execute("ALTER TABLE moves DROP COLUMN annotation")
        conn.execute("PRAGMA user_version=0")
    conn.close()
    Store(store).close()
    with sqlite3.connect(store) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION
        assert "annotation" in {r[1] for r in conn.execute("PRAGMA table_info(moves)")}
        conn.execute("ALTER TABLE moves DROP COLUMN annotation")  # at the version: not looked at again
    conn.close()
    Store(store).close()
    with sqlite3.connect(store) as conn:
        assert "annotation" not in {r[1] for r in conn.execute("PRAGMA table_info(moves)")}
    conn.close()


def test_a_store_from_a_newer_plylab_is_refused_in_one_line(tmp_path: Path, cli) -> None:  # noqa: ANN001
    store = tmp_path / "s.sqlite"
    Store(store).close()
    with sqlite3.connect(store) as conn:
        conn.execute(f"PRAGMA user_version={db.SCHEMA_VERSION + 1}")
    conn.close()
    before = store.read_bytes()
    for args in (RUN, ("report",)):
        r = cli(*args, "--store", str(store))
        assert (
            r.code == 2 and "written by a newer plylab" in r.err and len(r.err.strip().splitlines()) == 1
        ), r.err
    assert store.read_bytes() == before
