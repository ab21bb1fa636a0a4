"""The response cache: every model reply, kept in the run's store, keyed by what was asked.

The key is a hash of (model identity, messages, schema, sampling config, cache_key). The harness
passes cache_key = "<job_key>/<ply>/<attempt>", so re-running a plan (same seed, same jobs) asks
nothing new, while the same prompt met in two different games is sampled twice. A reply is
written as soon as it arrives (autocommit), so a process that dies mid-game loses no call.
Failed calls (time-outs, 5xx) are not cached: a resumed run asks again.

Rows are untrusted on the way back: a stored reply is re-validated (and made safe: see
`Reply`); one that cannot be read (a crash, an older version or a hand edit left it) is a miss, asked
again and replaced, never a crash and never a failure that every re-run would meet again. A reply is
validated the same way before it is stored, so what is stored reads back.

Long texts (a reply, its reasoning, a prompt) are stored once (issue 15 point 7): the row refers
to them by hash ({"$text": sha256}) in the `texts` table, and when the game is saved the move (or
Clue turn) that holds the same text takes it over: the `texts` row then keeps only where it lives
(the store's `harness.text_homes.hand_over`). Reading such a text back from its home is the store's SQL,
not the cache's: the cache stands below the store and may not import it, so whoever opens a cache
over a store gives it the store's reader (`homes`, a `plylab.texts.HomeReader`); a cache given
none (a bare SQLite file, a test) reads a text at home as missing. A text whose home cannot give it
back (deleted, edited) is a cache miss: asked again. Rows written by older versions hold their
texts inline and read as before.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Protocol, TypedDict

from ..db import connect, transaction
from ..jsontypes import JSONObject, JSONScalar
from ..texts import TEXTS_SCHEMA, HomeReader, TextHome, long_text_hash, text_hash
from .config import GenerateConfig
from .reply import Reply

SCHEMA = (
    TEXTS_SCHEMA
    + """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,   -- JSON: messages, schema, sampling config, cache_key (never credentials)
    reply TEXT NOT NULL,     -- JSON: Reply without the cached flag; long texts as {"$text": hash}
    created REAL NOT NULL
);
"""
)


def _ref_of(value: object) -> str | None:
    """The hash a {"$text": hash} reference names; None for any other value."""
    if isinstance(value, dict) and set(value) == {"$text"} and isinstance(value["$text"], str):
        return value["$text"]
    return None


class CacheRequest(TypedDict):
    """The part of a request that decides its reply: what the key hashes and what the row keeps."""

    model: str
    messages: list[dict[str, str]]
    schema: JSONObject | None
    config: dict[str, JSONScalar]  # the sampling fields (`GenerateConfig.sampling`)
    cache_key: str | None


def request_record(
    model: str,
    messages: list[dict[str, str]],
    schema: JSONObject | None,
    config: GenerateConfig,
    cache_key: str | None,
) -> CacheRequest:
    """The part of a request that decides its reply; what the key hashes and what the row keeps."""
    return {
        "model": model,
        "messages": messages,
        "schema": schema,
        "config": config.sampling(),
        "cache_key": cache_key,
    }


def make_key(request: CacheRequest) -> str:
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # surrogatepass: the same bytes as utf-8 for any valid text, and no crash on a lone surrogate
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _json_column(value: object) -> str:
    """JSON for a TEXT column; escaped to ASCII when the text is not valid UTF-8 (lossless)."""
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value)
    return text


def _loads(text: object) -> object:
    try:
        return json.loads(text) if isinstance(text, (str, bytes)) else None
    except (ValueError, RecursionError):
        return None


def stored_text(conn: sqlite3.Connection, digest: str, homes: HomeReader | None) -> str | None:
    """The text stored under `digest`, from `texts` or, through `homes`, from the saved move that
    holds it; None when it cannot be had (gone, edited, no reader for its home)."""
    try:
        found = conn.execute(
            "SELECT text, home, game_id, n, col, path FROM texts WHERE hash=?", (digest,)
        ).fetchone()
        if found is None:
            return None
        text, *home = tuple(found)
        if text is None:
            text = None if homes is None else homes(conn, TextHome(*home))
    except sqlite3.OperationalError:  # malformed JSON in a home, a table gone
        return None
    return text if isinstance(text, str) and text_hash(text) == digest else None


def _tables(conn: sqlite3.Connection) -> None:
    """The cache's tables, made with a new store file (so it appears whole: see `db.connect`)."""
    conn.executescript(SCHEMA)


def _readable(data: object) -> Reply | None:
    """A stored reply as a `Reply` (cached, made safe as every Reply is), or None where it cannot be
    one: not a JSON object (a row cut short), or a value `Reply` refuses."""
    if not isinstance(data, dict):
        return None
    try:
        return Reply.model_validate({**data, "cached": True})
    except (ValueError, TypeError, RecursionError):  # pydantic's ValidationError is a ValueError
        return None


class ReplyCache(Protocol):
    """What a model call needs of a cache: a reply by key, and storing one (a `ResponseCache`, or a
    worker's view of one over Ray)."""

    def get(self, key: str) -> Reply | None: ...

    def put(self, key: str, request: CacheRequest, reply: Reply) -> None: ...


class ResponseCache:
    """Replies by key in the `responses` table of a plylab store (or any SQLite file)."""

    def __init__(
        self, conn: sqlite3.Connection, *, owned: bool = False, homes: HomeReader | None = None
    ) -> None:
        self.conn = conn
        self._owned = owned
        self._homes = homes
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        with self._lock:
            conn.executescript(SCHEMA)

    @classmethod
    def open(cls, path: str | Path, *, homes: HomeReader | None = None) -> ResponseCache:
        """A cache with its own connection to the store at `path` (WAL, busy timeout); `homes` reads
        a text back from the saved move that holds it (the store's `harness.text_homes.text_at_home`)."""
        return cls(connect(path, setup=_tables), owned=True, homes=homes)

    def get(self, key: str) -> Reply | None:
        """The reply stored under `key`; None (a miss) when there is none or its texts are gone."""
        with self._lock:
            row = self.conn.execute("SELECT reply FROM responses WHERE key=?", (key,)).fetchone()
            data = _loads(row[0]) if row is not None else None
            for field in ("text", "reasoning"):
                digest = _ref_of(data.get(field)) if isinstance(data, dict) else None
                if isinstance(data, dict) and digest is not None:
                    data[field] = stored_text(self.conn, digest, self._homes)
                    if data[field] is None:
                        row = None  # a text that cannot be had: ask again
        reply = None if row is None else _readable(data)
        if reply is None:  # none, its texts gone, or unreadable: asked again (and replaced by `put`)
            self.misses += 1
            return None
        self.hits += 1
        return reply

    def put(self, key: str, request: CacheRequest, reply: Reply) -> None:
        """Store a reply (its long texts, and the request's, once in `texts`), in one transaction; one
        that would not read back as it is (see `_readable`) is not stored: the next run asks again."""
        body = reply.model_dump(mode="json", exclude={"cached"})
        if _readable(_loads(_json_column(body))) != reply.model_copy(update={"cached": True}):
            return
        messages = request.get("messages")
        row: dict[str, object] = dict(request)
        with self._lock, transaction(self.conn):
            for field in ("text", "reasoning"):
                body[field] = self._ref(body.get(field))
            if isinstance(messages, list):
                row["messages"] = [
                    {**m, **{k: self._ref(m[k]) for k in ("content", "image") if k in m}}
                    if isinstance(m, dict)
                    else m
                    for m in messages
                ]
            self.conn.execute(
                "INSERT OR REPLACE INTO responses(key, model, request, reply, created) VALUES (?,?,?,?,?)",
                (key, request["model"], _json_column(row), _json_column(body), time.time()),
            )

    def _ref(self, text: object) -> object:
        """A long text as {"$text": hash}, stored in `texts` unless it is there already (or at home)."""
        digest = long_text_hash(text)
        if digest is None:
            return text
        added = self.conn.execute("INSERT OR IGNORE INTO texts(hash, text) VALUES (?,?)", (digest, text))
        if added.rowcount == 0 and stored_text(self.conn, digest, self._homes) is None:  # its home lost it
            self.conn.execute(
                "UPDATE texts SET text=?, home=NULL, game_id=NULL, n=NULL, col=NULL, path=NULL WHERE hash=?",
                (text, digest),
            )
        return {"$text": digest}

    def __len__(self) -> int:
        with self._lock:
            return int(self.conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        if self._owned:
            self.conn.close()
