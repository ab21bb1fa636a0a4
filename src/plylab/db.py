"""SQLite helpers every store file shares (the run store, the response cache, REAPER's memory).

Here, below `harness/` and `models/`, so each of them writes a transaction the same way without
importing the other.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE..COMMIT on an autocommit connection (ROLLBACK on any exception).

    Inside a caller's transaction it is that one: the writes commit or roll back with it. IMMEDIATE
    takes the write lock at BEGIN, so two writers wait on the busy timeout instead of failing later.
    """
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
