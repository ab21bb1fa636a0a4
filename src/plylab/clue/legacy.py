"""Clue games stored before Clue ran on the session: read in place, never written.

plylab up to this change kept Clue in tables of its own (`clue_runs`, `clue_games`, `clue_turns`,
`clue_knowledge`). Such a store still reports (its rows are read here, as the typed rows `rows.py`
gives every Clue game) and resumes: its saved games count as played, and the games it lacks are
played into the one schema under the same run key, with the same seeds and cache keys.

Reports read them through `records.ClueRecords`, whose connection stays inside it; the study asks its
own store (and the forecast its read-only one) which legacy runs and games there are.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from ..players.canonical import canonical_spec
from .rows import ClueGameRow, ClueTurnRow, KnowledgeRow, belief, cards, claims, flag, ints

TABLES = ("clue_runs", "clue_games", "clue_turns", "clue_knowledge")


@dataclass(frozen=True, slots=True)
class LegacyRun:
    id: int
    key: str
    condition: str
    seed: int
    turn_limit: int
    specs: list[str]


def present(conn: sqlite3.Connection) -> bool:
    """Whether the store holds Clue tables written by an older plylab."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    return set(TABLES) <= have


def runs(conn: sqlite3.Connection) -> list[LegacyRun]:
    sql = "SELECT id, key, condition, seed, turn_limit, specs FROM clue_runs ORDER BY id"
    return [LegacyRun(i, k, c, s, t, json.loads(specs)) for i, k, c, s, t, specs in conn.execute(sql)]


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


def games(conn: sqlite3.Connection, run_id: int, condition: str) -> list[ClueGameRow]:
    """The run's games by index, their ids negated (apart from the one schema's) and seats canonical."""
    sql = (
        "SELECT id, run_id, idx, seed, seats, envelope, hands, winner, end_reason, turns, rounds, "
        "solution_suggested_turn, started, finished FROM clue_games WHERE run_id = ? ORDER BY idx"
    )
    return [
        ClueGameRow(
            -i,
            run,
            idx,
            seed,
            [canonical_spec(s) for s in json.loads(seats)],
            ints(envelope),
            [ints(h) for h in json.loads(hands)],
            winner,
            end,
            turns,
            rounds,
            suggested,
            started,
            finished,
            condition,
        )  # fmt: skip
        for i, run, idx, seed, seats, envelope, hands, winner, end, turns, rounds, suggested, started, finished in (
            conn.execute(sql, (run_id,))
        )
    ]


TURN_COLUMNS = (
    "turn, round, seat, action, cards, disprover, shown, correct, envelope_belief, claims, ready, "
    "failure_kind, error, prompt, reply, reasoning, input_tokens, output_tokens, reasoning_tokens, cost, "
    "latency, cached"
)


def turns(conn: sqlite3.Connection, game_id: int) -> list[ClueTurnRow]:
    sql = f"SELECT {TURN_COLUMNS} FROM clue_turns WHERE game_id = ? ORDER BY turn"
    out = []
    for row in conn.execute(sql, (game_id,)):
        turn, rnd, seat, action, cs, disprover, shown, correct, env, cl, ready = row[:11]
        failure, error, prompt, reply, reasoning, tin, tout, treason, cost, latency, cached = row[11:]
        out.append(
            ClueTurnRow(
                turn,
                rnd,
                seat,
                action,
                cards(cs),
                disprover,
                shown,
                flag(correct),
                belief(env),
                claims(cl),
                flag(ready),
                failure,
                error,
                prompt,
                reply,
                reasoning,
                tin,
                tout,
                treason,
                cost,
                latency,
                flag(cached),
            )  # fmt: skip
        )
    return out


def knowledge(conn: sqlite3.Connection, game_id: int) -> list[KnowledgeRow]:
    sql = (
        "SELECT turn, seat, oracle_known, oracle_solved, matrix_ready FROM clue_knowledge "
        "WHERE game_id = ? ORDER BY turn, seat"
    )
    rows = conn.execute(sql, (game_id,))
    return [KnowledgeRow(t, s, known, bool(solved), bool(ready)) for t, s, known, solved, ready in rows]
