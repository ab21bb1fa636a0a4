"""Long texts stored once in a store file: a content-addressed `texts` table (sha256 -> text).

The response cache (models/cache.py) refers to a long reply, reasoning or prompt by hash; when the
game is saved, the move (or Clue turn) holding the same text takes it over and the `texts` row keeps
only where it now lives (`hand_over`); a trigger hands it back before that home is deleted. It sits
below both the store and the cache, which share it.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Iterable
from typing import Any

TEXTS_SCHEMA = """
CREATE TABLE IF NOT EXISTS texts (
    hash TEXT PRIMARY KEY,   -- sha256 of the text's UTF-8
    text TEXT,               -- the text; NULL once a saved move or turn holds it (its home below)
    home TEXT,               -- moves | clue_turns (Clue turns of stores written before Clue was stored as moves)
    game_id INTEGER,
    n INTEGER,               -- the move's ply or the turn's number
    col TEXT,                -- prompt | reply | reasoning | attempts
    path TEXT                -- inside `attempts`: a JSON path such as $[0].reply
);
CREATE INDEX IF NOT EXISTS texts_home ON texts(home, game_id, n) WHERE home IS NOT NULL;
"""


TEXT_MIN = 256  # characters: shorter texts are kept inline (a reference would cost about as much)
HOMES = {"moves": "ply", "clue_turns": "turn"}  # where a text can live once its game is saved
COLUMNS = ("prompt", "reply", "reasoning", "attempts")
_PATH = re.compile(r"\$\[\d+\]\.(prompt|reply|reasoning)")


def keep_texts_trigger(home: str) -> str:
    """DDL: before a row of `home` is deleted, the texts it holds for the cache go back to `texts`."""
    n = HOMES[home]
    cases = " ".join(f"WHEN '{c}' THEN OLD.{c}" for c in COLUMNS[:3])
    attempts = "json_extract(OLD.attempts, path)" if home == "moves" else "NULL"  # Clue turns have none
    return f"""
CREATE TRIGGER IF NOT EXISTS {home}_keep_texts BEFORE DELETE ON {home} BEGIN
    UPDATE texts SET text = CASE col {cases} ELSE {attempts} END,
        home = NULL, game_id = NULL, n = NULL, col = NULL, path = NULL
    WHERE home = '{home}' AND game_id = OLD.game_id AND n = OLD.{n};
END;
"""


def text_hash(text: str) -> str | None:
    """sha256 of the text's UTF-8; None for a text that has none (a lone surrogate stays inline)."""
    try:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
    except UnicodeEncodeError:
        return None


def _long(text: Any) -> str | None:
    return text_hash(text) if isinstance(text, str) and len(text) >= TEXT_MIN else None


def resolve_text(conn: sqlite3.Connection, digest: str) -> str | None:
    """The text stored under `digest`, from `texts` or from its home; None when it cannot be had."""
    try:
        row = conn.execute(
            "SELECT text, home, game_id, n, col, path FROM texts WHERE hash=?", (digest,)
        ).fetchone()
        if row is None:
            return None
        text, home, game_id, n, col, path = tuple(row)
        if text is None:
            if home not in HOMES or col not in COLUMNS:
                return None
            where = f"FROM {home} WHERE game_id=? AND {HOMES[home]}=?"
            if col == "attempts":
                if not isinstance(path, str) or not _PATH.fullmatch(path):
                    return None
                found = conn.execute(
                    f"SELECT json_extract(attempts, ?) {where}", (path, game_id, n)
                ).fetchone()
            else:
                found = conn.execute(f"SELECT {col} {where}", (game_id, n)).fetchone()
            text = found[0] if found is not None else None
    except sqlite3.OperationalError:  # malformed JSON in a home, a table gone
        return None
    return text if isinstance(text, str) and text_hash(text) == digest else None


def hand_over(
    conn: sqlite3.Connection, home: str, game_id: int, n: int, texts: Iterable[tuple[str, str | None, Any]]
) -> None:
    """Saving a move or turn: each of its long texts (column, JSON path in it, text) that the cache
    holds is dropped from `texts`, which keeps where it now lives. Call inside the save's transaction."""
    for col, path, text in texts:
        digest = _long(text)
        if digest is not None:
            conn.execute(
                "UPDATE texts SET text=NULL, home=?, game_id=?, n=?, col=?, path=? WHERE hash=? AND text IS NOT NULL",
                (home, game_id, n, col, path, digest),
            )
