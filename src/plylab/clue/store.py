"""Clue tables in the plylab store (same SQLite file, WAL): runs, games, turns, knowledge.

A game and all its rows are written in one transaction when it ends, so a killed run never
leaves half a game and a re-run skips exactly the games already stored.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import asdict
from pathlib import Path

from ..errors import UserError
from ..harness.store import SHARED_FIELDS, connect, insert, insert_many, json_text, open_failure, transaction
from ..harness.study import Status
from ..texts import hand_over, keep_texts_trigger
from .session import GameLog

SCHEMA = """
CREATE TABLE IF NOT EXISTS clue_runs (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,       -- condition, seed, turn limit and specs: same key = same games
    condition TEXT NOT NULL,        -- baseline | matrix | mixed | custom
    seed INTEGER NOT NULL,
    turn_limit INTEGER NOT NULL,
    specs TEXT NOT NULL,            -- JSON list, before seat shuffling
    created REAL NOT NULL,
    updated REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'running',   -- running | finished | stopped | interrupted | failed
    stop_reason TEXT
);
CREATE TABLE IF NOT EXISTS clue_games (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES clue_runs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,            -- JSON: spec per seat
    envelope TEXT NOT NULL,         -- JSON card indices (classic deck order)
    hands TEXT NOT NULL,
    winner INTEGER,
    end_reason TEXT NOT NULL,       -- solved | all_out | turn_limit
    turns INTEGER NOT NULL,
    rounds INTEGER NOT NULL,
    solution_suggested_turn INTEGER,
    started REAL NOT NULL,
    finished REAL NOT NULL,
    UNIQUE (run_id, idx)
);
CREATE TABLE IF NOT EXISTS clue_turns (
    game_id INTEGER NOT NULL REFERENCES clue_games(id) ON DELETE CASCADE,
    turn INTEGER NOT NULL,
    round INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,           -- suggest | accuse | pass (a failed model turn is a pass)
    cards TEXT,
    disprover INTEGER,
    shown INTEGER,
    correct INTEGER,
    envelope_belief TEXT,           -- JSON [suspect, weapon, room] card or null; NULL: none stated
    claims TEXT,                    -- JSON [[card, holder, entailed|unsupported|incorrect], ...]
    ready INTEGER,                  -- the player's own matrix flag, when it sees one
    failure_kind TEXT,
    error TEXT,
    prompt TEXT,
    reply TEXT,
    reasoning TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL,
    latency REAL,
    cached INTEGER,
    PRIMARY KEY (game_id, turn)
);
CREATE TABLE IF NOT EXISTS clue_knowledge (
    game_id INTEGER NOT NULL REFERENCES clue_games(id) ON DELETE CASCADE,
    turn INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    oracle_known INTEGER NOT NULL,
    oracle_solved INTEGER NOT NULL,
    matrix_ready INTEGER NOT NULL,
    PRIMARY KEY (game_id, turn, seat)
);
CREATE INDEX IF NOT EXISTS clue_games_run ON clue_games(run_id);
"""
# A turn's long prompt, reply or trace is stored once: the response cache's copy moves into the
# saved turn (models/cache.py, `hand_over`), and goes back to the cache if the turn is deleted.
SCHEMA += keep_texts_trigger("clue_turns")
GAME_FIELDS = ("seed", "winner", "end_reason", "rounds", "solution_suggested_turn", "started", "finished")
TOKENS = ("input_tokens", "output_tokens", "reasoning_tokens")
CALL_COLUMNS = (*SHARED_FIELDS, *TOKENS, "error", "cost", "latency", "cached")
NO_CALL = {**dict.fromkeys((*CALL_COLUMNS, "failure_kind")), **dict.fromkeys(TOKENS, 0)}  # a bot's turn


class ClueStore:
    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        self.conn = connect(self.path, create=create)
        if not create:  # read-only: a plylab store without Clue tables has no Clue games to read
            have = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"clue_runs", "clue_games", "clue_turns", "clue_knowledge"} <= have:
                self.conn.close()
                raise UserError(
                    f"no Clue games in store '{path}'; play some with `plylab clue run --store {path}`"
                )
            return
        try:
            self.conn.executescript(SCHEMA)
            have = {r[1] for r in self.conn.execute("PRAGMA table_info(clue_runs)")}
            if "status" not in have:  # written before Clue runs had a status: NULL until played again
                self.conn.execute("ALTER TABLE clue_runs ADD COLUMN status TEXT")
                self.conn.execute("ALTER TABLE clue_runs ADD COLUMN stop_reason TEXT")
        except sqlite3.DatabaseError as exc:
            raise open_failure(self.path, exc) from None

    def close(self) -> None:
        self.conn.close()

    def open_run(self, key: str, condition: str, seed: int, turn_limit: int, specs: list[str]) -> int:
        now = time.time()
        row = self.conn.execute("SELECT id FROM clue_runs WHERE key=?", (key,)).fetchone()
        if row is not None:
            self.conn.execute(
                "UPDATE clue_runs SET status='running', stop_reason=NULL, updated=? WHERE id=?",
                (now, row["id"]),
            )
            return int(row["id"])
        cur = self.conn.execute(
            "INSERT INTO clue_runs(key, condition, seed, turn_limit, specs, created, updated) VALUES (?,?,?,?,?,?,?)",
            (key, condition, seed, turn_limit, json_text(specs), now, now),
        )
        return int(cur.lastrowid)  # type: ignore[arg-type]

    def finish_run(self, run_id: int, status: Status, reason: str | None = None) -> None:
        """The run's status, as the games' store records it (`harness.study.StoreHandle`)."""
        self.conn.execute(
            "UPDATE clue_runs SET status=?, stop_reason=?, updated=? WHERE id=?",
            (status, reason, time.time(), run_id),
        )

    def finished(self, run_id: int) -> set[int]:
        return {r[0] for r in self.conn.execute("SELECT idx FROM clue_games WHERE run_id=?", (run_id,))}

    def save_game(self, run_id: int, idx: int, log: GameLog) -> bool:
        """Write a game with its turns and knowledge rows atomically; False if already stored."""
        game = {f: getattr(log, f) for f in GAME_FIELDS} | {"run_id": run_id, "idx": idx}
        game.update(
            {f: json_text(getattr(log, f)) for f in ("seats", "envelope", "hands")}, turns=len(log.turns)
        )
        with transaction(self.conn) as c:
            cur = insert(c, "clue_games", game, or_ignore=True)
            if cur.rowcount == 0:
                return False
            game_id = cur.lastrowid
            assert game_id is not None  # set by every successful INSERT
            rows = []
            for t in log.turns:
                d, call = t.decision, t.decision.call
                row = {
                    **NO_CALL,
                    "game_id": game_id,
                    "turn": t.turn,
                    "round": t.round,
                    "seat": t.seat,
                    "action": d.kind,
                    "cards": json_text(list(d.cards) if d.cards else None),
                    "disprover": t.disprover,
                    "shown": t.shown,
                    "correct": t.correct,
                    "envelope_belief": None
                    if d.deductions is None
                    else json_text([d.deductions.envelope.get(i) for i in range(3)]),
                    "claims": json_text([list(c) for c in t.claims]),
                    "ready": d.ready,
                }
                if call is not None:
                    texts = [(f, None, getattr(call, f)) for f in SHARED_FIELDS]
                    hand_over(c, "clue_turns", game_id, t.turn, texts)  # first: freed pages hold the turn
                    row.update({f: getattr(call, f) for f in CALL_COLUMNS}, failure_kind=call.failure)
                rows.append(row)
            insert_many(c, "clue_turns", rows)
            knowledge = [asdict(snap) | {"game_id": game_id} for snap in log.snapshots]
            insert_many(c, "clue_knowledge", knowledge)
        return True

    # reading ---------------------------------------------------------------------------
    def runs(self) -> list[sqlite3.Row]:
        return self.conn.execute("SELECT * FROM clue_runs ORDER BY id").fetchall()

    def games(self) -> list[sqlite3.Row]:
        return self.conn.execute(
            "SELECT g.*, r.condition FROM clue_games g JOIN clue_runs r ON r.id = g.run_id ORDER BY g.run_id, g.idx"
        ).fetchall()

    def turns(self, game_id: int) -> list[sqlite3.Row]:
        return self.conn.execute(
            "SELECT * FROM clue_turns WHERE game_id=? ORDER BY turn", (game_id,)
        ).fetchall()

    def knowledge(self, game_id: int) -> list[sqlite3.Row]:
        return self.conn.execute(
            "SELECT * FROM clue_knowledge WHERE game_id=? ORDER BY turn, seat", (game_id,)
        ).fetchall()
