"""The results store: one SQLite file in WAL mode, written by one writer.

A finished game and all its moves are written in one transaction, so a game is either fully
stored or not at all: a killed run never leaves half a game, and a resumed run replays exactly
the games that are missing (model replies come back from the response cache, at no cost).
Other subsystems (response cache, Clue, learning runs) add their own tables through `connect`.
Every SQL read of `runs`, `games` and `moves` is here too: readers get typed rows (rows.py).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import suppress
from dataclasses import fields
from pathlib import Path
from typing import TypeVar

from .. import db
from ..db import DEFAULT_STORE as DEFAULT_STORE
from ..db import REQUIRED as REQUIRED  # the file's opening and reading rules, re-exported from their home
from ..db import SQLITE_MAGIC as SQLITE_MAGIC
from ..db import check_before_writing as check_before_writing
from ..db import damaged as damaged
from ..db import open_failure as open_failure
from ..db import open_read_only as open_read_only
from ..db import read_only_folder as read_only_folder
from ..db import reading as reading
from ..db import stores_beside as stores_beside
from ..db import transaction
from ..errors import UserError
from ..jsontypes import JSONObject, JSONScalar, JSONValue
from ..secrets import scrub_spec  # a key written into a base_url never reaches the store
from ..seeds import CLUE_CELLS, LLM_LISTING, LLM_PROMPT, SEEDING
from ..texts import TEXTS_SCHEMA
from .frames import GAME_TOTALS, MatchupMoves, RunsFrame, json_ids, named
from .records import GameRecord
from .rows import (
    CalledMove,
    ExportRows,
    GameRow,
    Lease,
    ListedGame,
    Matchup,
    MatchupSpan,
    ModelUsage,
    MoveRow,
    RunRow,
    json_text,
    reader,
    rows_of,
)
from .text_homes import hand_over, keep_texts_trigger

# Who plays a run: the driver's claim (harness/driver.py), so two processes never play one run.
LEASES = """CREATE TABLE IF NOT EXISTS run_leases (
    name TEXT PRIMARY KEY,          -- study:run name
    pid INTEGER NOT NULL,           -- the process playing it; a dead pid leaves the lease free
    host TEXT NOT NULL,
    since REAL NOT NULL,            -- the holder's last heartbeat (renewed every LEASE_BEAT seconds)
    born TEXT                       -- the process's start time (/proc), so a reused pid is not mistaken for it
)"""

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL DEFAULT 'play',
    seed INTEGER NOT NULL,
    plan TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'running',
    stop_reason TEXT,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    job_key TEXT NOT NULL,
    idx INTEGER NOT NULL,
    game TEXT NOT NULL,
    formulation TEXT NOT NULL,
    player TEXT NOT NULL,
    opponent TEXT NOT NULL,
    player_seat INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    returns TEXT NOT NULL,
    outcome TEXT NOT NULL,          -- from the player's side: win | draw | loss | failure
    forfeit_by INTEGER,             -- seat that failed, if any
    failure_kind TEXT,
    num_moves INTEGER NOT NULL,
    started REAL NOT NULL,
    finished REAL NOT NULL,
    extra TEXT,
    UNIQUE (run_id, job_key)
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    player TEXT NOT NULL,
    state TEXT NOT NULL,            -- OpenSpiel serialization of the state before the move
    observation TEXT,               -- the position in the formulation the player saw
    legal TEXT NOT NULL,            -- JSON list of legal engine actions
    action INTEGER,                 -- NULL when the move failed (forfeit)
    action_label TEXT,
    elapsed REAL NOT NULL,
    values_json TEXT,               -- oracle value of every legal move (mover's view)
    scores_json TEXT,               -- finer exact scores where the oracle has them
    optimal INTEGER,                -- 1/0; NULL when not scored
    informative INTEGER,            -- 0 when every legal move is optimal (excluded)
    optimal_score INTEGER,
    informative_score INTEGER,
    grade TEXT,                     -- the one graded scale (oracles.graded.Grade as JSON)
    loss REAL,                      -- the played move's loss on that scale
    prompt TEXT,
    reply TEXT,
    reasoning TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL,
    calls INTEGER NOT NULL DEFAULT 0,
    cache_hits INTEGER NOT NULL DEFAULT 0,
    failure_kind TEXT,
    attempts TEXT,                  -- JSON list of every attempt, failed ones included
    note TEXT,                      -- player-specific trace (JSON)
    annotation TEXT,                -- the game's own account of the move (JSON; a Clue turn, judged)
    PRIMARY KEY (game_id, ply)
);
CREATE INDEX IF NOT EXISTS games_run ON games(run_id);
"""
# A long prompt, reply or trace is stored once: the response cache's copy moves into the saved move
# (models/cache.py, `hand_over`), and goes back to the cache if the move is ever deleted.
SCHEMA += TEXTS_SCHEMA + keep_texts_trigger("moves")


def connect(path: str | Path, *, create: bool = True) -> sqlite3.Connection:
    """Open (and create) a store with WAL, foreign keys and a busy timeout; a new store is made whole
    (see `db.connect`), and an older one upgraded once (`create=False`: read-only, see `open_read_only`)."""
    return db.connect(path, create=create, setup=_setup)


def _setup(conn: sqlite3.Connection) -> None:
    """Bring the store to `db.SCHEMA_VERSION`: nothing when it is there (the usual open), else its
    tables made and an older store's columns added, the version written with them in one transaction
    (a second process upgrading at once waits, then finds it done); a newer store is refused."""
    if db.schema_version(conn) == db.SCHEMA_VERSION:
        return
    with transaction(conn):
        if db.schema_version(conn) == db.SCHEMA_VERSION:
            return
        for statement in _statements(SCHEMA):
            conn.execute(statement)
        _add_columns(conn)
        conn.execute(f"PRAGMA user_version={db.SCHEMA_VERSION}")


def _statements(script: str) -> Iterator[str]:
    """The statements of an SQL script, one by one (a trigger whole): `executescript` would commit."""
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            yield statement
            statement = ""


# Columns added after stores were first written: a writer adds them to an older store once (readers
# of an older store see each missing column's default in its typed row).
ADDED_COLUMNS: dict[str, dict[str, str]] = {"moves": {"grade": "TEXT", "loss": "REAL", "annotation": "TEXT"}}


def _add_columns(conn: sqlite3.Connection) -> None:
    for table, columns in ADDED_COLUMNS.items():
        have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
        for name, kind in columns.items():
            if name not in have:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")


def insert(
    conn: sqlite3.Connection, table: str, row: Mapping[str, object], *, or_ignore: bool = False
) -> sqlite3.Cursor:
    """INSERT one row given as column -> value (sqlite3 stores a bool as 0/1)."""
    return conn.execute(_insert_sql(table, row, or_ignore), row)


def insert_many(conn: sqlite3.Connection, table: str, rows: list[dict[str, object]]) -> None:
    """INSERT rows that share their columns (the first row's keys)."""
    if rows:
        conn.executemany(_insert_sql(table, rows[0], False), rows)


def _insert_sql(table: str, row: Mapping[str, object], or_ignore: bool) -> str:
    verb = "INSERT OR IGNORE" if or_ignore else "INSERT"
    return f"{verb} INTO {table}({', '.join(row)}) VALUES ({', '.join(':' + c for c in row)})"


SHARED_FIELDS = ("prompt", "reply", "reasoning")
SHARED_MIN = 64  # characters: shorter texts cost less than the reference


def stored_attempts(m: MoveRow) -> list[dict[str, object]] | None:
    """A move's attempts as stored: text equal to the move's own column is kept once, in the column.

    The final attempt's prompt, reply and trace are also the move's `prompt`, `reply` and
    `reasoning`; storing them twice doubled the size of every long reply. Such a field is stored
    as {"$move": "reply"} (etc.) and `expand_attempts` puts the text back when reading.
    """
    if m.attempts is None:
        return None
    out = []
    for a in json.loads(m.attempts):
        for f in SHARED_FIELDS:
            value = a.get(f)
            if isinstance(value, str) and len(value) >= SHARED_MIN and value == getattr(m, f):
                a[f] = {"$move": f}
        out.append(a)
    return out


def expand_attempts(
    attempts: list[JSONObject] | None, move: MoveRow | sqlite3.Row | Mapping[str, object]
) -> list[JSONObject] | None:
    """Stored attempts with every {"$move": field} replaced by the move's text (older stores have none)."""
    if not attempts:
        return attempts

    def text(field: JSONValue) -> JSONValue:
        name = str(field)
        value = getattr(move, name) if isinstance(move, MoveRow) else move[name]
        return value if value is None or isinstance(value, str) else str(value)

    return [
        {k: text(v["$move"]) if isinstance(v, dict) and set(v) == {"$move"} else v for k, v in a.items()}
        for a in attempts
    ]


def _texts(m: MoveRow, attempts: list[dict[str, object]] | None) -> Iterator[tuple[str, str | None, object]]:
    """A move's texts as stored: (column, JSON path inside it, text), for `hand_over`."""
    for f in SHARED_FIELDS:
        yield f, None, getattr(m, f)
    for i, a in enumerate(attempts or ()):
        for f in SHARED_FIELDS:
            yield "attempts", f"$[{i}].{f}", a.get(f)


# Each game's totals (GAME_TOTALS) for one run, numbered within its matchup and seat by index, so the
# site can write replay pages for the first N of each and list the rest.
LISTED = f"""
SELECT t.*, ROW_NUMBER() OVER (
    PARTITION BY t.game, t.formulation, t.player, t.opponent, t.player_seat ORDER BY t.idx) AS nth
FROM ({GAME_TOTALS}) AS t ORDER BY t.id
"""

MATCHUP_SPANS = """
SELECT game, formulation, player, opponent, MIN(started) AS started, MAX(finished) AS finished
FROM games WHERE run_id = ? GROUP BY game, formulation, player, opponent ORDER BY MIN(id)
"""


# Per game, the tail of its prompts and the head of its traces and replies, for the game list's search.
GAME_TEXTS = """SELECT game_id, substr(group_concat(
    coalesce(substr(prompt, -:tail), '') || ' ' || coalesce(substr(reasoning, 1, :cap), '')
    || ' ' || coalesce(substr(reply, 1, :cap), ''), ' '), 1, :game_cap) AS text
FROM moves WHERE game_id IN (SELECT value FROM json_each(:ids))
AND (prompt IS NOT NULL OR reply IS NOT NULL OR reasoning IS NOT NULL) GROUP BY game_id"""

# `plylab export`: each table as stored (every column, older stores' too), games and moves named by run.
EXPORTS = {
    "runs": "SELECT * FROM runs WHERE (:run IS NULL OR name = :run) ORDER BY id",
    "games": "SELECT r.name AS run, g.* FROM games g JOIN runs r ON r.id = g.run_id "
    "WHERE (:run IS NULL OR r.name = :run) ORDER BY g.id",
    "moves": "SELECT r.name AS run, g.job_key, g.game, g.formulation, m.* FROM moves m "
    "JOIN games g ON g.id = m.game_id JOIN runs r ON r.id = g.run_id "
    "WHERE (:run IS NULL OR r.name = :run) ORDER BY m.game_id, m.ply",
}


T = TypeVar("T")


class SavedKeys:
    """A run's saved job keys, looked up one at a time: memory stays flat however many are stored."""

    def __init__(self, store: Store, run_id: int) -> None:
        self.store, self.run_id = store, run_id

    def __contains__(self, key: object) -> bool:
        return self.store.has_game(self.run_id, key)

    def count(self) -> int:
        return self.store.game_count(self.run_id)


# The rules a new run records in its plan, so that it resumes under them whatever later defaults
# become; and the rule a run stored before each one was played under (players read them from
# `RunContext.extra`).
RULES: dict[str, JSONScalar] = {
    "seeding": SEEDING,
    "llm_prompt": LLM_PROMPT,
    "llm_listing": LLM_LISTING,
    "clue_cells": CLUE_CELLS,
}
OLD_RULES: dict[str, JSONScalar] = {
    "seeding": 1,
    "llm_prompt": "reason",
    "llm_listing": "engine",
    "clue_cells": "symbols",
}


def same_plan(stored: str, plan: Mapping[str, object]) -> bool:
    """Is the stored plan `plan`, whatever rules it recorded? A run keeps the rules it was made under
    (some, all or none of `RULES`, with today's values or older ones), so they are not compared."""
    try:
        recorded = json.loads(stored)
    except ValueError:
        return False
    if not isinstance(recorded, dict):
        return False
    given = json.loads(json.dumps(plan))  # as it would be stored (tuples as lists)
    return bool({k: v for k, v in recorded.items() if k not in RULES} == given)


class Store:
    """Typed access to runs, games and moves. The run loop holds the only writing instance."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        self._conn = connect(self.path, create=create)  # never handed out: every SQL is a method here

    def close(self) -> None:
        self._conn.close()

    def old_clue_run_keys(self) -> set[str]:
        """The keys of Clue runs an older plylab kept in its own `clue_runs` table. Their games are not
        read, but their model replies are cached under these keys, so a resume must take the key."""
        have = self._conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='clue_runs'")
        if have.fetchone() is None:
            return set()
        return {key for (key,) in self._conn.execute("SELECT key FROM clue_runs")}

    # runs -------------------------------------------------------------------------------
    def open_run(self, name: str, seed: int, plan: Mapping[str, object], kind: str = "play") -> int:
        """Create a run, or reopen one with the same plan (resume). A different plan is an error.
        A new run records its rules (`RULES`: the per-call seed rule, the `llm` text prompt, Clue's
        matrix cells); a run stored before a rule has none and keeps its old one (`rules`)."""
        plan_text = json.dumps({**plan, **RULES}, sort_keys=True)
        row = self._conn.execute("SELECT id, plan, seed, kind FROM runs WHERE name=?", (name,)).fetchone()
        now = time.time()
        if row is None:
            cur = self._conn.execute(
                "INSERT INTO runs(name, kind, seed, plan, created, updated) VALUES (?,?,?,?,?,?)",
                (name, kind, seed, plan_text, now, now),
            )
            assert cur.lastrowid is not None  # set by every successful INSERT
            return cur.lastrowid
        if not same_plan(row["plan"], plan) or row["seed"] != seed:
            raise UserError(
                f"run '{name}' already exists in {self.path} with a different plan or seed; "
                "use another --run name to start a new run, or repeat the original command to resume it"
            )
        self._conn.execute(
            "UPDATE runs SET status='running', stop_reason=NULL, updated=? WHERE id=?", (now, row["id"])
        )
        return int(row["id"])

    def seeding(self, run_id: int) -> int:
        """The run's per-call seed rule: `SEEDING`, or 1 (each caller's old seeds) for an older run."""
        row = self._conn.execute("SELECT plan FROM runs WHERE id=?", (run_id,)).fetchone()
        return int(json.loads(row["plan"]).get("seeding", 1))

    def rules(self, run_id: int) -> dict[str, object]:
        """The run's rules as players read them (`RunContext.extra`): its seed rule and its `llm`
        text prompt (`reason`, the old default, for a run stored before `llm_prompt`)."""
        row = self._conn.execute("SELECT plan FROM runs WHERE id=?", (run_id,)).fetchone()
        plan = json.loads(row["plan"])
        return {k: plan.get(k, old) for k, old in OLD_RULES.items()}

    def finish_run(self, run_id: int, status: str, reason: str | None = None) -> None:
        self._conn.execute(
            "UPDATE runs SET status=?, stop_reason=?, updated=? WHERE id=?",
            (status, reason, time.time(), run_id),
        )

    def runs(self, name: str | None = None) -> list[RunRow]:
        """Every run in order, or the one named (an unknown name is one clear line)."""
        if name is None:
            return list(rows_of(RunRow, self._conn.execute("SELECT * FROM runs ORDER BY id")))
        rows = list(rows_of(RunRow, self._conn.execute("SELECT * FROM runs WHERE name=?", (name,))))
        if not rows:
            from ..players.canonical import printed_run_name  # the names as printed (each selects its run)

            stored = self._conn.execute("SELECT name FROM runs ORDER BY id")
            known = [printed_run_name(r["name"]) for r in stored]
            raise UserError(f"no run '{name}' in {self.path}; runs here: {', '.join(known) or 'none'}")
        return rows

    def stored_run_name(self, name: str) -> str:
        """The stored name of the run `name` names: itself, or the run it is the printed form of
        (players/canonical.py printed_run_name: a made name's specs written canonically), so a
        name copied from a table finds its run; unknown names come back as given."""
        if self._conn.execute("SELECT 1 FROM runs WHERE name=?", (name,)).fetchone():
            return name
        from ..players.canonical import printed_run_name

        names = [n for (n,) in self._conn.execute("SELECT name FROM runs ORDER BY id")]
        return next((n for n in names if printed_run_name(n) == name), name)

    def saved(self, run_id: int) -> SavedKeys:
        return SavedKeys(self, run_id)

    def has_game(self, run_id: int, job_key: object) -> bool:
        """Whether the run has saved the game with this job key."""
        sql = "SELECT 1 FROM games WHERE run_id=? AND job_key=?"
        return self._conn.execute(sql, (run_id, job_key)).fetchone() is not None

    # leases (harness/driver.py `claim`) ---------------------------------------------------
    def take_lease(self, name: str, me: Lease, free: Callable[[Lease], bool]) -> Lease | None:
        """Hold the lease `name` as `me`, unless another process holds it and `free(holder)` says
        it is not free: then nothing is written and the holder comes back.
        Read and written in one transaction, so two processes cannot both take it."""
        self._conn.execute(LEASES)
        with transaction(self._conn) as c:
            row = c.execute("SELECT pid, host, since, born FROM run_leases WHERE name=?", (name,)).fetchone()
            if row is not None:
                holder = Lease(pid=int(row[0]), host=row[1], since=float(row[2]), born=row[3])
                if holder.pid != me.pid and not free(holder):
                    return holder
            c.execute(
                "INSERT OR REPLACE INTO run_leases(name, pid, host, since, born) VALUES (?,?,?,?,?)",
                (name, me.pid, me.host, me.since, me.born),
            )
        return None

    def lease(self, name: str) -> Lease | None:
        """Who holds the lease `name`, and since when (None: nobody)."""
        try:
            row = self._conn.execute(
                "SELECT pid, host, since, born FROM run_leases WHERE name=?", (name,)
            ).fetchone()
        except sqlite3.OperationalError:  # no run was ever claimed in this store: no table
            return None
        return None if row is None else Lease(pid=int(row[0]), host=row[1], since=float(row[2]), born=row[3])

    def keep_lease(self, name: str, pid: int, every: float, stop: threading.Event) -> None:
        """Renew the lease every `every` seconds until `stop` is set, on a connection of its own
        (for a thread: the run's connection is busy playing)."""
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        try:
            while not stop.wait(every):
                with suppress(sqlite3.Error):
                    conn.execute(
                        "UPDATE run_leases SET since=? WHERE name=? AND pid=?", (time.time(), name, pid)
                    )
        finally:
            conn.close()

    def release_lease(self, name: str, pid: int) -> None:
        """Give the lease up (a store that can no longer be written keeps it; its pid is gone)."""
        with suppress(sqlite3.Error):
            self._conn.execute("DELETE FROM run_leases WHERE name=? AND pid=?", (name, pid))

    # games ------------------------------------------------------------------------------
    def save_game(self, run_id: int, rec: GameRecord) -> bool:
        """Write a game and its moves atomically; False if that job was already stored."""
        game = {f.name: getattr(rec, f.name) for f in fields(GameRecord) if f.name != "moves"}
        game.update(
            run_id=run_id,
            player=scrub_spec(rec.player),
            opponent=scrub_spec(rec.opponent),
            returns=json_text(rec.returns),
            extra=json_text(rec.extra),
            num_moves=len(rec.moves),
        )
        with transaction(self._conn) as c:
            cur = insert(c, "games", game, or_ignore=True)
            if cur.rowcount == 0:
                return False
            game_id = cur.lastrowid
            assert game_id is not None  # set by every successful INSERT
            rows = []
            for m in rec.moves:
                attempts = stored_attempts(m)
                hand_over(c, "moves", game_id, m.ply, _texts(m, attempts))  # first: freed pages hold the move
                row = {f.name: getattr(m, f.name) for f in fields(MoveRow)}
                row.update(game_id=game_id, player=scrub_spec(m.player), attempts=json_text(attempts))
                rows.append(row)
            insert_many(c, "moves", rows)
        return True

    def games(self, run_ids: Iterable[int] | None = None) -> list[GameRow]:
        if run_ids is None:
            return list(
                named(rows_of(GameRow, self._conn.execute("SELECT * FROM games ORDER BY run_id, id")))
            )
        ids = list(run_ids)
        marks = ",".join("?" * len(ids)) or "NULL"
        sql = f"SELECT * FROM games WHERE run_id IN ({marks}) ORDER BY run_id, id"
        return list(named(rows_of(GameRow, self._conn.execute(sql, ids))))

    def moves(self, game_id: int) -> list[MoveRow]:
        """A game's moves, in order."""
        return self.moves_for_games([game_id])[game_id]

    def player_grades(self, game_ids: Iterable[int]) -> dict[int, list[tuple[int, str]]]:
        """Each game's graded moves by its player, (action, stored grade) in order: what the one graded
        decision (reports.truth.judged) is read from, without the moves' prompts and replies."""
        ids = list(game_ids)
        out: dict[int, list[tuple[int, str]]] = {i: [] for i in ids}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            sql = (
                "SELECT m.game_id, m.action, m.grade FROM moves m JOIN games g ON g.id = m.game_id "
                f"WHERE m.game_id IN ({marks}) AND m.seat = g.player_seat AND m.action IS NOT NULL "
                "AND m.grade IS NOT NULL ORDER BY m.game_id, m.ply"
            )
            for gid, action, grade in self._conn.execute(sql, chunk):
                out[gid].append((int(action), str(grade)))
        return out

    def moves_for_games(self, game_ids: Iterable[int]) -> dict[int, list[MoveRow]]:
        """Each of these games' moves, in order, by game id."""
        ids = list(game_ids)
        out: dict[int, list[MoveRow]] = {i: [] for i in ids}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            cur = self._conn.execute(
                f"SELECT * FROM moves WHERE game_id IN ({marks}) ORDER BY game_id, ply", chunk
            )
            read, at = reader(MoveRow, cur), [d[0] for d in cur.description].index("game_id")
            for r in cur:
                out[r[at]].extend(named([read(r)]))
        return out

    # typed readers (analysis, reports, export) ------------------------------------------
    def frame(self, run_ids: Iterable[int]) -> RunsFrame:
        """These runs' games and moves, as the analysis reads them (harness/frames.py)."""
        return RunsFrame(self._conn, run_ids)

    def listed_games(self, run_id: int) -> Iterator[ListedGame]:
        """One run's games in store order, each with its player's move totals and its number `nth`."""
        return named(rows_of(ListedGame, self._conn.execute(LISTED, json_ids([run_id]))))

    def games_by_id(self, ids: list[int]) -> list[GameRow]:
        """These games, by id (the site's replay pages, a chunk at a time)."""
        sql = "SELECT * FROM games WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id"
        return list(named(rows_of(GameRow, self._conn.execute(sql, json_ids(ids)))))

    def matchup_spans(self, run_id: int) -> list[MatchupSpan]:
        """A run's (game, formulation, player, opponent) as stored, first played first, with its span."""
        return list(rows_of(MatchupSpan, self._conn.execute(MATCHUP_SPANS, (run_id,))))

    def matchup_games(self, run_id: int, key: tuple[str, str, str, str]) -> Iterator[GameRow]:
        """The games of one stored (game, formulation, player, opponent) of a run, by index."""
        sql = (
            "SELECT * FROM games WHERE run_id = ? AND game = ? AND formulation = ? AND player = ? "
            "AND opponent = ? ORDER BY idx, id"
        )
        return named(rows_of(GameRow, self._conn.execute(sql, (run_id, *key))))

    def failure_kinds(self, run_id: int) -> list[str]:
        """The failure kinds of a run's games, sorted."""
        sql = (
            "SELECT DISTINCT failure_kind FROM games WHERE run_id = ? AND failure_kind IS NOT NULL ORDER BY 1"
        )
        return [k for (k,) in self._conn.execute(sql, (run_id,))]

    def run_kinds(self, name: str | None = None) -> set[str]:
        """The kinds of the store's runs (or of the one named; none for an unknown name)."""
        sql = "SELECT kind FROM runs WHERE ? IS NULL OR name = ?"
        return {k for (k,) in self._conn.execute(sql, (name, name))}

    def game_texts(self, ids: list[int], tail: int, cap: int, game_cap: int) -> dict[int, str]:
        """Per game with texts: its prompts' last `tail` characters, traces' and replies' first `cap`,
        joined and cut at `game_cap`."""
        args = {"tail": tail, "cap": cap, "game_cap": game_cap, "ids": json.dumps(ids)}
        return {int(r["game_id"]): r["text"] for r in self._conn.execute(GAME_TEXTS, args)}

    def matchup_moves(self, m: Matchup) -> MatchupMoves:
        """The matchup player's moves, as its page reads them (harness/frames.py)."""
        return MatchupMoves(self._conn, m)

    def called_moves(self, run_id: int) -> Iterator[CalledMove]:
        """A run's saved moves that called a model (what a resumed run's budget has spent)."""
        return called_moves(self._conn, run_id)

    def game_count(self, run_id: int) -> int:
        return game_count(self._conn, run_id)

    def export_rows(self, table: str, run: str | None, batch: int = 2000) -> ExportRows:
        """`plylab export`'s rows of `table` as stored (every column), streamed `batch` rows at a time;
        texts stored once (in the move's column) go back into each attempt."""
        cur = self._conn.execute(EXPORTS[table], {"run": run})
        names = [d[0] for d in cur.description]
        at = names.index("attempts") if "attempts" in names else None

        def batches() -> Iterator[list[tuple[object, ...]]]:
            while rows := cur.fetchmany(batch):
                out = [tuple(r) for r in rows]
                if at is not None:
                    out = [
                        (
                            *t[:at],
                            json_text(expand_attempts(json.loads(t[at]), r)) if t[at] else t[at],
                            *t[at + 1 :],
                        )
                        for t, r in zip(out, rows, strict=True)
                    ]
                yield out

        return ExportRows(names, batches())

    def declared_types(self) -> dict[str, str]:
        """Each exported column's declared SQLite type (moves' first, as the export selects them)."""
        declared: dict[str, str] = {}
        for t in ("moves", "games", "runs"):
            for _, name, kind, *_ in self._conn.execute(f"PRAGMA table_info({t})"):
                declared.setdefault(name, kind.upper())
        return declared


# Readers over a bare connection, for the run driver's budget and the dry run's forecast. -----------
def called_moves(conn: sqlite3.Connection, run_id: int) -> Iterator[CalledMove]:
    """A run's saved moves that called a model."""
    sql = (
        "SELECT m.calls, m.attempts FROM moves m JOIN games g ON g.id = m.game_id "
        "WHERE g.run_id = ? AND m.calls > 0"
    )
    return (CalledMove(calls=int(c), attempts=a) for c, a in conn.execute(sql, (run_id,)))


def game_count(conn: sqlite3.Connection, run_id: int) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM games WHERE run_id = ?", (run_id,)).fetchone()[0])


class StoreView:
    """A store as a forecast reads it: never created or changed, and empty where it cannot be read
    (a forecast is an estimate; a damaged store is refused when the run opens it); its connection
    stays inside."""

    def __init__(self, path: str | Path) -> None:
        self._conn: sqlite3.Connection | None = None
        if Path(path).exists():
            with suppress(Exception):  # a store that cannot be read has taught us nothing
                self._conn = open_read_only(path)

    def __enter__(self) -> StoreView:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _read(self, read: Callable[[sqlite3.Connection], T], empty: T) -> T:
        if self._conn is None:
            return empty
        try:
            return read(self._conn)
        except sqlite3.Error:
            return empty

    def saved_games(self, run: str) -> int:
        return self._read(lambda c: saved_game_count(c, run), 0)

    def saved_by_run(self, prefix: str) -> dict[str, int]:
        return self._read(lambda c: saved_game_counts(c, prefix), {})

    def saved_indexes(self, run: str) -> set[int]:
        return self._read(lambda c: saved_indexes(c, run), set())

    def mean_player_moves(self, game: str, spec: str) -> float | None:
        return self._read(lambda c: mean_player_moves(c, game, spec), None)

    def mean_move_calls(self, game: str, spec: str) -> float | None:
        return self._read(lambda c: mean_move_calls(c, game, spec), None)

    def model_usage(self, model: str) -> ModelUsage | None:
        return self._read(lambda c: model_usage(c, model), None)


def saved_game_count(conn: sqlite3.Connection, run: str) -> int:
    """Games saved under the run named `run` (0 for none)."""
    sql = "SELECT COUNT(*) FROM games g JOIN runs r ON r.id = g.run_id WHERE r.name = ?"
    return int(conn.execute(sql, (run,)).fetchone()[0])


def saved_game_counts(conn: sqlite3.Connection, prefix: str) -> dict[str, int]:
    """Games saved under each run whose name starts with `prefix` (runs with none left out)."""
    sql = (
        "SELECT r.name, COUNT(*) FROM games g JOIN runs r ON r.id = g.run_id "
        "WHERE substr(r.name, 1, ?) = ? GROUP BY r.name"
    )
    return {str(name): int(n) for name, n in conn.execute(sql, (len(prefix), prefix))}


def saved_indexes(conn: sqlite3.Connection, run: str) -> set[int]:
    """The indexes of the games saved under the run named `run`."""
    sql = "SELECT g.idx FROM games g JOIN runs r ON r.id = g.run_id WHERE r.name = ?"
    return {int(i) for (i,) in conn.execute(sql, (run,))}


def mean_player_moves(conn: sqlite3.Connection, game: str, spec: str) -> float | None:
    """Mean moves per game the player `spec` made in the store's games of `game` (None: none)."""
    row = conn.execute(
        "SELECT AVG(n) FROM (SELECT COUNT(*) AS n FROM moves m JOIN games g ON g.id = m.game_id "
        "WHERE g.game = ? AND m.player = ? GROUP BY g.id)",
        (game, spec),
    ).fetchone()
    return None if row is None or row[0] is None else float(row[0])


def mean_move_calls(conn: sqlite3.Connection, game: str, spec: str) -> float | None:
    """Mean model calls per move the player `spec` made in the store's games of `game` (None: none)."""
    row = conn.execute(
        "SELECT AVG(m.calls) FROM moves m JOIN games g ON g.id = m.game_id WHERE g.game = ? AND m.player = ?",
        (game, spec),
    ).fetchone()
    return None if row is None or row[0] is None else float(row[0])


def model_usage(conn: sqlite3.Connection, model: str) -> ModelUsage | None:
    """The stored moves with calls of players whose spec names `model` (None: none)."""
    row = conn.execute(
        "SELECT SUM(output_tokens), SUM(calls), SUM(cost), COUNT(cost), COUNT(*) FROM moves "
        "WHERE calls > 0 AND (player LIKE ? OR player LIKE ?)",
        (f"%model={model},%", f"%model={model}"),
    ).fetchone()
    if row is None or not row[1]:
        return None
    return ModelUsage(
        output_tokens=int(row[0] or 0),
        calls=int(row[1]),
        cost=None if row[2] is None else float(row[2]),
        costed=int(row[3]),
        moves=int(row[4]),
    )
