"""The SQL of the Clue tables an older plylab wrote (`clue_runs`, `clue_games`, `clue_turns`,
`clue_knowledge`): read, never written. It sits with the store, the one home of plylab's SQL;
`clue/legacy.py` turns these rows into the typed rows every Clue game reads as."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from .rows import rows_of

TABLES = ("clue_runs", "clue_games", "clue_turns", "clue_knowledge")


@dataclass(frozen=True, slots=True, kw_only=True)
class OldClueRun:
    id: int
    key: str
    condition: str
    seed: int
    turn_limit: int
    specs: str  # JSON list, before seat shuffling


@dataclass(frozen=True, slots=True, kw_only=True)
class OldClueGame:
    id: int
    run_id: int
    idx: int
    seed: int
    seats: str  # JSON: spec per seat
    envelope: str  # JSON card indices
    hands: str
    winner: int | None
    end_reason: str
    turns: int
    rounds: int
    solution_suggested_turn: int | None
    started: float
    finished: float


@dataclass(frozen=True, slots=True, kw_only=True)
class OldClueTurn:
    turn: int
    round: int
    seat: int
    action: str
    cards: str | None
    disprover: int | None
    shown: int | None
    correct: int | None
    envelope_belief: str | None
    claims: str | None
    ready: int | None
    failure_kind: str | None
    error: str | None
    prompt: str | None
    reply: str | None
    reasoning: str | None
    input_tokens: int
    output_tokens: int
    reasoning_tokens: int
    cost: float | None
    latency: float | None
    cached: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class OldClueKnowledge:
    turn: int
    seat: int
    oracle_known: int
    oracle_solved: int
    matrix_ready: int


def present(conn: sqlite3.Connection) -> bool:
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    return set(TABLES) <= have


def has_games(conn: sqlite3.Connection) -> bool:
    return present(conn) and conn.execute("SELECT 1 FROM clue_games LIMIT 1").fetchone() is not None


def runs(conn: sqlite3.Connection) -> list[OldClueRun]:
    if not present(conn):
        return []
    return list(rows_of(OldClueRun, conn.execute("SELECT * FROM clue_runs ORDER BY id")))


def saved(conn: sqlite3.Connection, key: str) -> set[int]:
    """Game indexes an older plylab saved under run `key`."""
    if not present(conn):
        return set()
    sql = "SELECT g.idx FROM clue_games g JOIN clue_runs r ON r.id = g.run_id WHERE r.key = ?"
    return {int(r[0]) for r in conn.execute(sql, (key,))}


def games(conn: sqlite3.Connection, run_id: int) -> list[OldClueGame]:
    sql = "SELECT * FROM clue_games WHERE run_id = ? ORDER BY idx"
    return list(rows_of(OldClueGame, conn.execute(sql, (run_id,))))


def turns(conn: sqlite3.Connection, game_id: int) -> list[OldClueTurn]:
    sql = "SELECT * FROM clue_turns WHERE game_id = ? ORDER BY turn"
    return list(rows_of(OldClueTurn, conn.execute(sql, (game_id,))))


def knowledge(conn: sqlite3.Connection, game_id: int) -> list[OldClueKnowledge]:
    sql = "SELECT * FROM clue_knowledge WHERE game_id = ? ORDER BY turn, seat"
    return list(rows_of(OldClueKnowledge, conn.execute(sql, (game_id,))))
