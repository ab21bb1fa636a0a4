"""Case memory and rule memory: one SQLite file, the agent's learned artifact.

Format (rollback journal, not WAL, so a read-only open never touches the file; schema version in
`meta.format`):

- `cases`: one row per remembered move — `game`, `formulation`, `key` (the retrieval text: the
  observation, or the state description), `observation`, `legal` (JSON list of labels), `action`
  (label), `intent`, `reward` (terminal return from the mover's side: 1, 0, -1), `label`
  (`positive`: emulate; `negative`: avoid), `reflection` (JSON: quality, contribution,
  intent_achieved, lesson, turning_point; NULL when not reflected), `source` (game job key),
  `ply`, `game_no` (the learning game that wrote it), `dedup` (hash of game, formulation,
  observation, action and reward; NULL when the variant keeps duplicates).
- `embeddings`: `key_hash` -> float32 vector of the encoder named in `meta.encoder`: cases are
  embedded once, when written, and cases sharing a key share one vector.
- `rules`: the current rule set (`idx`, `text`), replaced whole by each extraction.
- `updates`: log of learning updates (reflection and rule extraction calls, their tokens, failures).
- `meta`: `format`, `game`, `formulation`, `encoder`, `games_learned`, `rules_at` (games_learned at
  the last extraction).

Open read-only for play and evaluation (`frozen=True`): the file stays byte-for-byte unchanged.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ...db import transaction
from ...errors import UserError

if TYPE_CHECKING:
    from .schemas import Reflection

FORMAT = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cases (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    formulation TEXT NOT NULL,
    key TEXT NOT NULL,
    key_hash TEXT NOT NULL,
    observation TEXT NOT NULL,
    legal TEXT NOT NULL,
    action TEXT NOT NULL,
    intent TEXT NOT NULL DEFAULT '',
    reward REAL NOT NULL,
    label TEXT NOT NULL CHECK (label IN ('positive', 'negative')),
    reflection TEXT,
    source TEXT NOT NULL,
    ply INTEGER NOT NULL,
    game_no INTEGER NOT NULL,
    dedup TEXT UNIQUE
);
CREATE TABLE IF NOT EXISTS embeddings (key_hash TEXT PRIMARY KEY, vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS rules (idx INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS updates (
    id INTEGER PRIMARY KEY,
    game_no INTEGER NOT NULL,
    kind TEXT NOT NULL,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    failure TEXT
);
"""


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class Case:
    """One remembered move. `label` decides how the planner is shown it (emulate or avoid)."""

    game: str
    formulation: str
    key: str
    observation: str
    legal: list[str]
    action: str
    intent: str
    reward: float
    label: str
    reflection: Reflection | None = None
    source: str = ""
    ply: int = 0
    game_no: int = 0
    id: int | None = None

    @property
    def positive(self) -> bool:
        return self.label == "positive"

    def dedup_key(self) -> str:
        """State-action-reward identity (the Baseline's deduplication)."""
        return text_hash(
            json.dumps([self.game, self.formulation, self.observation, self.action, self.reward])
        )


@dataclass
class Update:
    """A learning update's bookkeeping (a reflection or a rule extraction)."""

    kind: str
    input_tokens: int = 0
    output_tokens: int = 0
    failure: str | None = None


@dataclass(frozen=True)
class UpdateTally:
    """How many learning updates of one kind (`reflect`, `rules`) a memory's log holds that ended one
    way (`failure`: its reason, e.g. `truncated`; None: made)."""

    kind: str
    failure: str | None
    count: int


def update_log(path: Path) -> list[UpdateTally]:
    """A memory file's update log tallied by (kind, failure), read-only; empty where the file cannot
    be read. The `updates` table kept its shape in every format, so a report reads any memory's log
    without opening it as a memory (no format check: an older memory's log still counts)."""
    sql = "SELECT kind, failure, COUNT(*) FROM updates GROUP BY kind, failure"
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            return [UpdateTally(k, f, int(c)) for k, f, c in conn.execute(sql)]
    except sqlite3.DatabaseError:
        return []


@dataclass
class Index:
    """Cases with their key vectors, loaded once per memory open (rows of `vectors` align with `cases`)."""

    cases: list[Case] = field(default_factory=list)
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))

    def __post_init__(self) -> None:
        self.ids = np.array([c.id or 0 for c in self.cases], dtype=np.int64)
        self.positive = np.array([c.positive for c in self.cases], dtype=bool)  # by label (how shown)
        self.rewarded = np.array([c.reward > 0 for c in self.cases], dtype=bool)  # by recorded reward
        self._observations = {c.observation for c in self.cases}

    def holds(self, observation: str) -> bool:
        """Whether some case was played in this exact state (D.4.1's retrieval-success denominator)."""
        return observation in self._observations


class CaseMemory:
    """A memory file. Writers hold the one connection; `frozen` opens it read-only."""

    def __init__(self, path: Path, conn: sqlite3.Connection, *, frozen: bool) -> None:
        self.path = path
        self.conn = conn
        self.frozen = frozen
        self._index: Index | None = None

    # opening ----------------------------------------------------------------------------
    @classmethod
    def open(
        cls, path: str | Path, *, frozen: bool, game: str | None = None, formulation: str | None = None
    ) -> CaseMemory:
        """Open (a writer creates) the memory at `path`; a memory holds one game's experience."""
        path = Path(path)
        if path.is_dir():
            raise UserError(f"memory '{path}' is a directory; expected a memory file (SQLite)")
        try:
            if frozen:
                if not path.exists():
                    raise UserError(f"memory '{path}' does not exist; train one with `plylab learn` first")
                conn = sqlite3.connect(
                    f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False
                )
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=DELETE")
                conn.executescript(SCHEMA)
            conn.row_factory = sqlite3.Row
            memory = cls(path, conn, frozen=frozen)
            memory._bind(game, formulation)
        except sqlite3.DatabaseError as exc:
            raise UserError(f"memory '{path}' is not a readable REAPER memory ({exc})") from None
        return memory

    def _bind(self, game: str | None, formulation: str | None) -> None:
        meta = self.meta()
        if not meta and self.frozen:
            raise UserError(f"memory '{self.path}' is not a REAPER memory (no meta table)")
        if not meta:
            with self.transaction():
                self._set_meta(
                    format=FORMAT, game=game or "", formulation=formulation or "", games_learned=0, rules_at=0
                )
            return
        if int(meta.get("format", 0)) != FORMAT:
            raise UserError(
                f"memory '{self.path}' has format {meta.get('format')}; this plylab reads format {FORMAT}"
            )
        if game and meta.get("game") not in ("", game):
            raise UserError(f"memory '{self.path}' holds experience of '{meta['game']}', not '{game}'")

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        if self.frozen:
            raise RuntimeError("a frozen memory is read-only")
        with transaction(self.conn) as conn:
            yield conn
        self._index = None

    # meta -------------------------------------------------------------------------------
    def meta(self) -> dict[str, str]:
        try:
            return {r["key"]: r["value"] for r in self.conn.execute("SELECT key, value FROM meta")}
        except sqlite3.OperationalError:
            return {}

    def _set_meta(self, **values: str | int) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [(k, str(v)) for k, v in values.items()]
        )

    @property
    def games_learned(self) -> int:
        return int(self.meta().get("games_learned", 0))

    @property
    def games_since_rules(self) -> int:
        meta = self.meta()
        return int(meta.get("games_learned", 0)) - int(meta.get("rules_at", 0))

    # cases ------------------------------------------------------------------------------
    def add_game(
        self,
        cases: Sequence[Case],
        *,
        dedup: bool,
        encode: Callable[[list[str]], np.ndarray],
        updates: Iterable[Update] = (),
    ) -> int:
        """Write one learning game's cases (and its update log) in one transaction.

        Returns how many cases were new. Keys are embedded here, once; the vectors are stored.
        """
        game_no = self.games_learned + 1
        missing = [k for k in dict.fromkeys(c.key for c in cases) if not self._has_vector(text_hash(k))]
        vectors = dict(zip(missing, encode(missing))) if missing else {}
        added = 0
        with self.transaction() as conn:
            for key, vec in vectors.items():
                conn.execute(
                    "INSERT OR IGNORE INTO embeddings(key_hash, vector) VALUES (?, ?)",
                    (text_hash(key), np.asarray(vec, dtype=np.float32).tobytes()),
                )
            for c in cases:
                c.game_no = game_no
                cur = conn.execute(
                    """INSERT OR IGNORE INTO cases(game, formulation, key, key_hash, observation, legal,
                       action, intent, reward, label, reflection, source, ply, game_no, dedup)
                       VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)""",
                    (
                        c.game,
                        c.formulation,
                        c.key,
                        text_hash(c.key),
                        c.observation,
                        json.dumps(c.legal),
                        c.action,
                        c.intent,
                        c.reward,
                        c.label,
                        None if c.reflection is None else json.dumps(c.reflection, sort_keys=True),
                        c.source,
                        c.ply,
                        game_no,
                        c.dedup_key() if dedup else None,
                    ),
                )
                added += cur.rowcount
            self._log(conn, game_no, updates)
            self._set_meta(games_learned=game_no)
        return added

    def _log(self, conn: sqlite3.Connection, game_no: int, updates: Iterable[Update]) -> None:
        conn.executemany(
            "INSERT INTO updates(game_no, kind, input_tokens, output_tokens, failure) VALUES (?,?,?,?,?)",
            [(game_no, u.kind, u.input_tokens, u.output_tokens, u.failure) for u in updates],
        )

    def _has_vector(self, key_hash: str) -> bool:
        return (
            self.conn.execute("SELECT 1 FROM embeddings WHERE key_hash=?", (key_hash,)).fetchone() is not None
        )

    def vector(self, key: str) -> np.ndarray | None:
        """The stored vector of a key, if some case has it (a free query embedding)."""
        row = self.conn.execute(
            "SELECT vector FROM embeddings WHERE key_hash=?", (text_hash(key),)
        ).fetchone()
        return None if row is None else np.frombuffer(row[0], dtype=np.float32)

    def cases(self, *, since_game: int = 0) -> list[Case]:
        rows = self.conn.execute("SELECT * FROM cases WHERE game_no > ? ORDER BY id", (since_game,))
        return [_case(r) for r in rows]

    def __len__(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM cases").fetchone()[0])

    def index(self) -> Index:
        """All cases and their key vectors (unit-normalised), loaded once per open or write."""
        if self._index is None:
            rows = self.conn.execute(
                "SELECT c.*, e.vector FROM cases c JOIN embeddings e ON e.key_hash = c.key_hash ORDER BY c.id"
            ).fetchall()
            cases = [_case(r) for r in rows]
            if rows:
                vectors = np.stack([np.frombuffer(r["vector"], dtype=np.float32) for r in rows])
            else:
                vectors = np.zeros((0, 0), dtype=np.float32)
            self._index = Index(cases, _unit(vectors))
        return self._index

    # rules ------------------------------------------------------------------------------
    def rules(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT text FROM rules ORDER BY idx")]

    def set_rules(self, rules: Sequence[str], update: Update) -> None:
        """Replace the rule set (self-correcting: the extractor rewrites it whole)."""
        games = self.games_learned
        with self.transaction() as conn:
            if update.failure is None:
                conn.execute("DELETE FROM rules")
                conn.executemany("INSERT INTO rules(idx, text) VALUES (?, ?)", list(enumerate(rules)))
            self._log(conn, games, [update])
            if update.failure is None:  # a failed extraction leaves its cases for the next one
                self._set_meta(rules_at=games)

    # artifacts --------------------------------------------------------------------------
    def snapshot(self, dest: Path) -> None:
        """A consistent copy of this memory at `dest` (atomic: a reader never sees half a file)."""
        dest.parent.mkdir(parents=True, exist_ok=True)
        partial = dest.with_name(dest.name + ".partial")
        partial.unlink(missing_ok=True)
        with closing(sqlite3.connect(partial)) as target:
            self.conn.backup(target)
        partial.replace(dest)

    def digest(self) -> str:
        """Hash of the memory's content (cases, rules, counters), independent of page layout."""
        body = {
            "cases": [asdict(c) for c in self.cases()],
            "rules": self.rules(),
            "meta": {k: v for k, v in sorted(self.meta().items())},
        }
        return text_hash(json.dumps(body, sort_keys=True))


def _case(row: sqlite3.Row) -> Case:
    return Case(
        game=row["game"],
        formulation=row["formulation"],
        key=row["key"],
        observation=row["observation"],
        legal=json.loads(row["legal"]),
        action=row["action"],
        intent=row["intent"],
        reward=row["reward"],
        label=row["label"],
        reflection=None if row["reflection"] is None else json.loads(row["reflection"]),
        source=row["source"],
        ply=row["ply"],
        game_no=row["game_no"],
        id=row["id"],
    )


def _unit(vectors: np.ndarray) -> np.ndarray:
    if vectors.size == 0:
        return vectors
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)
