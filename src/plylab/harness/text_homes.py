"""The store's side of long texts stored once (plylab/texts.py): the moves (and old Clue turns)
that take over a text the response cache holds, and the one SQL that reads it back from them.

A saved move or turn is a text's home: `hand_over` drops the text from `texts`, which keeps where it
now lives; `text_at_home` reads it back (the response cache is given it as its `HomeReader`, since
the cache stands on a lower floor than the store and may not import it); a trigger hands it back
before that home is deleted.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

from ..texts import TextHome, long_text_hash

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


def text_at_home(conn: sqlite3.Connection, at: TextHome) -> str | None:
    """The text a move or turn holds where its `texts` row says; None for a home that is not one
    (an unknown table or column, a malformed path) or holds nothing there. Errors (malformed JSON in
    the home, a table gone) are the caller's: it treats them as a text that cannot be had."""
    home, col = at.home, at.col
    if not isinstance(home, str) or home not in HOMES or col not in COLUMNS:
        return None
    where = f"FROM {home} WHERE game_id=? AND {HOMES[home]}=?"
    if col == "attempts":
        if not isinstance(at.path, str) or not _PATH.fullmatch(at.path):
            return None
        found = conn.execute(
            f"SELECT json_extract(attempts, ?) {where}", (at.path, at.game_id, at.n)
        ).fetchone()
    else:
        found = conn.execute(f"SELECT {col} {where}", (at.game_id, at.n)).fetchone()
    text = found[0] if found is not None else None
    return text if isinstance(text, str) else None


def hand_over(
    conn: sqlite3.Connection, home: str, game_id: int, n: int, texts: Iterable[tuple[str, str | None, object]]
) -> None:
    """Saving a move or turn: each of its long texts (column, JSON path in it, text) that the cache
    holds is dropped from `texts`, which keeps where it now lives. Call inside the save's transaction."""
    for col, path, text in texts:
        digest = long_text_hash(text)
        if digest is not None:
            conn.execute(
                "UPDATE texts SET text=NULL, home=?, game_id=?, n=?, col=?, path=? WHERE hash=? AND text IS NOT NULL",
                (home, game_id, n, col, path, digest),
            )
