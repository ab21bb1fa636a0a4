"""Long texts stored once in a store file: the content-addressed `texts` table (sha256 -> text).

The response cache (models/cache.py) refers to a long reply, reasoning or prompt by hash; when the
game is saved, the move (or Clue turn) holding the same text takes it over and the `texts` row keeps
only where it now lives (`TextHome`). What a home is, and the SQL that hands a text over and reads
it back, belong to the store (harness/text_homes.py); the cache is given that reader (`HomeReader`) by
whoever opens it over a store. Here, on the ground floor, only what both share: the table, the hash.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

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


def text_hash(text: str) -> str | None:
    """sha256 of the text's UTF-8; None for a text that has none (a lone surrogate stays inline)."""
    try:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
    except UnicodeEncodeError:
        return None


def long_text_hash(value: object) -> str | None:
    """The hash of a text long enough to be stored once; None for anything else (kept inline)."""
    return text_hash(value) if isinstance(value, str) and len(value) >= TEXT_MIN else None


@dataclass(frozen=True)
class TextHome:
    """Where a handed-over text lives, as its `texts` row says: a file's rows are untrusted, so each
    value is as stored and the reader checks it."""

    home: object  # the table
    game_id: object
    n: object  # the move's ply or the turn's number
    col: object  # the column
    path: object  # inside `attempts`: the JSON path


# Reads a text back from its home over the given connection (None: it cannot be had); the store's
# is `harness.text_homes.text_at_home`.
HomeReader: TypeAlias = Callable[[sqlite3.Connection, TextHome], "str | None"]
