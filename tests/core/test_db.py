"""The one write transaction every store file uses (`plylab.db.transaction`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from plylab.db import transaction


def _conn(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE t (x INTEGER)")
    return conn


def test_commits_and_rolls_back(tmp_path: Path) -> None:
    conn = _conn(tmp_path / "s.sqlite")
    with transaction(conn) as c:
        c.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(KeyError), transaction(conn) as c:
        c.execute("INSERT INTO t VALUES (2)")
        raise KeyError("boom")
    assert [r[0] for r in conn.execute("SELECT x FROM t")] == [1]
    assert not conn.in_transaction


def test_inside_a_callers_transaction_it_is_that_one(tmp_path: Path) -> None:
    """A nested write neither fails ("cannot start a transaction within a transaction") nor commits
    on its own: the outer rollback takes it back too."""
    conn = _conn(tmp_path / "s.sqlite")
    with pytest.raises(KeyError), transaction(conn):
        with transaction(conn) as c:
            c.execute("INSERT INTO t VALUES (1)")
        assert conn.in_transaction
        raise KeyError("outer fails")
    assert conn.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 0
