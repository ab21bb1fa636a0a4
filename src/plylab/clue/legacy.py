"""Clue games stored before Clue ran on the session: read in place, never written.

plylab up to this change kept Clue in tables of its own (`clue_runs`, `clue_games`, `clue_turns`,
`clue_knowledge`). Such a store still reports (its rows are read here, in the shape `records.py`
gives every Clue game) and resumes: its saved games count as played, and the games it lacks are
played into the one schema under the same run key, with the same seeds and cache keys.
"""

from __future__ import annotations

import sqlite3
from typing import Any

TABLES = ("clue_runs", "clue_games", "clue_turns", "clue_knowledge")


def present(conn: sqlite3.Connection) -> bool:
    """Whether the store holds Clue tables written by an older plylab."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    return set(TABLES) <= have


def runs(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    return [dict(r) for r in conn.execute("SELECT * FROM clue_runs ORDER BY id")]


def run_ids(conn: sqlite3.Connection, keys: list[str]) -> list[int]:
    """The legacy runs stored under any of these keys."""
    if not present(conn):
        return []
    marks = ",".join("?" * len(keys))
    return [int(r[0]) for r in conn.execute(f"SELECT id FROM clue_runs WHERE key IN ({marks})", keys)]


def saved_indexes(conn: sqlite3.Connection, key: str) -> set[int]:
    """Game indexes an older plylab saved under run `key`."""
    if not present(conn):
        return set()
    sql = "SELECT g.idx FROM clue_games g JOIN clue_runs r ON r.id = g.run_id WHERE r.key = ?"
    return {int(r[0]) for r in conn.execute(sql, (key,))}


def games(conn: sqlite3.Connection, run_id: int) -> list[dict[str, Any]]:
    sql = "SELECT * FROM clue_games WHERE run_id = ? ORDER BY idx"
    return [dict(r) for r in conn.execute(sql, (run_id,))]


def turns(conn: sqlite3.Connection, game_id: int) -> list[dict[str, Any]]:
    sql = "SELECT * FROM clue_turns WHERE game_id = ? ORDER BY turn"
    return [dict(r) for r in conn.execute(sql, (game_id,))]


def knowledge(conn: sqlite3.Connection, game_id: int) -> list[dict[str, Any]]:
    sql = "SELECT * FROM clue_knowledge WHERE game_id = ? ORDER BY turn, seat"
    return [dict(r) for r in conn.execute(sql, (game_id,))]
