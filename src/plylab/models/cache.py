"""The response cache: every model reply, kept in the run's store, keyed by what was asked.

The key is a hash of (model identity, messages, schema, sampling config, cache_key). The harness
passes cache_key = "<job_key>/<ply>/<attempt>", so re-running a plan (same seed, same jobs) asks
nothing new, while the same prompt met in two different games is sampled twice. A reply is
written as soon as it arrives (autocommit), so a process that dies mid-game loses no call.
Failed calls (time-outs, 5xx) are not cached: a resumed run asks again.

Rows are untrusted on the way back: a stored reply is re-validated (and made safe: see
`Reply`); one that cannot be read at all is a failed attempt of kind `bad_reply`, never a crash.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from .config import GenerateConfig
from .errors import ModelError
from .reply import Reply

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,   -- JSON: messages, schema, sampling config, cache_key (never credentials)
    reply TEXT NOT NULL,     -- JSON: Reply without the cached flag
    created REAL NOT NULL
);
"""


def request_record(
    model: str,
    messages: list[dict[str, Any]],
    schema: dict[str, Any] | None,
    config: GenerateConfig,
    cache_key: str | None,
) -> dict[str, Any]:
    """The part of a request that decides its reply; what the key hashes and what the row keeps."""
    return {
        "model": model,
        "messages": messages,
        "schema": schema,
        "config": config.sampling(),
        "cache_key": cache_key,
    }


def make_key(request: dict[str, Any]) -> str:
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # surrogatepass: the same bytes as utf-8 for any valid text, and no crash on a lone surrogate
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _json_column(value: Any) -> str:
    """JSON for a TEXT column; escaped to ASCII when the text is not valid UTF-8 (lossless)."""
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value)
    return text


class ResponseCache:
    """Replies by key in the `responses` table of a plylab store (or any SQLite file)."""

    def __init__(self, conn: sqlite3.Connection, *, owned: bool = False) -> None:
        self.conn = conn
        self._owned = owned
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        with self._lock:
            conn.executescript(SCHEMA)

    @classmethod
    def open(cls, path: str | Path) -> ResponseCache:
        """A cache with its own connection to the store at `path` (WAL, busy timeout)."""
        from ..harness.store import connect

        return cls(connect(path), owned=True)

    def get(self, key: str) -> Reply | None:
        with self._lock:
            row = self.conn.execute("SELECT reply FROM responses WHERE key=?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        try:
            data = json.loads(row[0]) if isinstance(row[0], (str, bytes)) else None
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            data["cached"] = True
            return Reply.model_validate(data)
        except (ValueError, TypeError, RecursionError) as exc:  # pydantic's ValidationError is a ValueError
            why = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            raise ModelError("bad_reply", f"the cached reply cannot be used ({why})") from None

    def put(self, key: str, request: dict[str, Any], reply: Reply) -> None:
        body = _json_column(reply.model_dump(mode="json", exclude={"cached"}))
        with self._lock:
            self.conn.execute(
                "INSERT OR REPLACE INTO responses(key, model, request, reply, created) VALUES (?,?,?,?,?)",
                (key, request["model"], _json_column(request), body, time.time()),
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self.conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        if self._owned:
            self.conn.close()
