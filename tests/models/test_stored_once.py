"""A long reply, its reasoning and its prompt are stored once in the store file, not once in the
response cache and again in the move (issue 15 point 7), and stores written before are still read.

A real run plays through the loopback server, which answers every move with ~900 kB of distinct
text (under the 1,000,000-character cap) and a ~300 kB reasoning trace.
"""

from __future__ import annotations

import csv
import json
import random
import sqlite3
import string
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from tests.support.clue import clue_turns
from tests.support.fake_openai_server import Behaviour, FakeOpenAIServer, legal_move

REPLY_CHARS = 900_000
REASONING_CHARS = 300_000


def padding(seed: int, chars: int) -> str:
    """Distinct plain words (no character that JSON or HTML would escape), `chars` long."""
    rng = random.Random(seed)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(chars // 4)]
    return " ".join(words)[:chars]


class LongServer(FakeOpenAIServer):
    """Every answer: a legal move after ~900 kB of thinking aloud, and a ~300 kB trace; all kept."""

    sent: list[tuple[str, str]]
    clue = False

    async def _answer(self, request: web.Request, body: dict[str, Any], b: Behaviour) -> web.StreamResponse:
        n = len(self.requests)
        if self.clue:  # a Clue turn: pass, with a long why
            text = json.dumps({"action": "pass", "why": padding(n, REPLY_CHARS)})
        else:
            text = padding(n, REPLY_CHARS) + "\n" + legal_move(body)
        reasoning = padding(-n, REASONING_CHARS)
        self.sent.append((text, reasoning))
        return await super()._answer(request, body, Behaviour(text=text, reasoning=reasoning))


@pytest.fixture
def long_server(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("LONG_API_KEY", "sk-long")
    with LongServer(api_key="sk-long") as server:
        monkeypatch.setenv("LONG_BASE_URL", server.url)
        server.sent = []
        yield server


def run_args(server: LongServer, store: Path, games: int = 2) -> list[str]:
    spec = f"llm:model=openai-api/long/m,base_url={server.url}"
    return [
        "run",
        "--game",
        "tic_tac_toe",
        "--player",
        spec,
        "--opponent",
        "random",
        "--games",
        str(games),
    ] + [
        "--store",
        str(store),
        "--run",
        "long",
        "--seed",
        "3",
        "--quiet",
    ]


def file_bytes(store: Path) -> int:
    """The store as it lies on disk: the file and any -wal beside it."""
    return sum(p.stat().st_size for p in store.parent.glob(store.name + "*"))


def distinct_bytes(server: LongServer) -> int:
    """UTF-8 bytes of every distinct reply, trace and prompt that went over the wire."""
    texts = {t for pair in server.sent for t in pair}
    texts |= {m["content"] for body in server.requests for m in body["messages"]}
    return sum(len(t.encode()) for t in texts)


def stored_replies(store: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(store) as conn:
        rows = conn.execute(
            "SELECT reply, reasoning FROM moves WHERE reply IS NOT NULL ORDER BY game_id, ply"
        )
        out = [tuple(r) for r in rows]
    conn.close()
    return out


@pytest.mark.slow
def test_a_real_run_stores_each_long_reply_once_and_shows_it(cli, long_server, tmp_path):
    store = tmp_path / "s.sqlite"
    res = cli(*run_args(long_server, store))
    assert res.code == 0, res.err
    moves = stored_replies(store)
    assert len(moves) == len(long_server.sent) >= 4  # one call per model move, none failed
    assert sorted(moves) == sorted(long_server.sent)  # every reply and trace, whole
    size, wire = file_bytes(store), distinct_bytes(long_server)
    assert size < 1.3 * wire, f"store {size} B for {wire} B of distinct text"

    # shown in full: the moves export, the replay pages of the site
    assert cli("export", str(tmp_path / "m.csv"), "--store", str(store), "--table", "moves").code == 0
    csv.field_size_limit(1 << 30)
    exported = [(r["reply"], r["reasoning"]) for r in csv.DictReader(open(tmp_path / "m.csv")) if r["reply"]]
    assert sorted(exported) == sorted(long_server.sent)
    site = tmp_path / "site"
    assert cli("report", "--store", str(store), "--html", str(site)).code == 0
    pages = "".join(p.read_text() for p in site.rglob("*.html"))
    for text, reasoning in long_server.sent:
        assert text.split("\n")[0] in pages and reasoning in pages

    # resume from the cache: the games are gone, the same command plays them again without a call
    with sqlite3.connect(store) as conn:
        conn.execute("DELETE FROM moves")  # the texts they held go back to the cache's table
        conn.execute("DELETE FROM games")
    conn.close()
    calls = len(long_server.requests)
    res = cli(*run_args(long_server, store))
    assert res.code == 0, res.err
    assert len(long_server.requests) == calls, "every reply came back from the response cache"
    assert sorted(stored_replies(store)) == sorted(long_server.sent)
    assert file_bytes(store) < 1.3 * wire


@pytest.mark.slow
def test_a_cached_text_whose_move_is_gone_is_asked_again(cli, long_server, tmp_path):
    """A text the cache lent to a move that was edited away is a miss (a new call), never a crash."""
    from plylab.harness.text_homes import text_at_home
    from plylab.models.cache import stored_text

    store = tmp_path / "s.sqlite"
    assert cli(*run_args(long_server, store, games=1)).code == 0
    with sqlite3.connect(store) as conn:
        conn.execute("DROP TRIGGER moves_keep_texts")  # as if edited by hand, bypassing the trigger
        conn.execute("UPDATE moves SET reply = 'edited'")
        digests = [r[0] for r in conn.execute("SELECT hash FROM texts WHERE col = 'reply'")]
        assert digests and all(stored_text(conn, d, text_at_home) is None for d in digests)
        conn.execute("DELETE FROM moves")
        conn.execute("DELETE FROM games")
    conn.close()
    calls = len(long_server.requests)
    assert cli(*run_args(long_server, store, games=1)).code == 0
    assert len(long_server.requests) == 2 * calls  # asked again, stored again
    assert sorted(stored_replies(store)) == sorted(long_server.sent[calls:])


def downgrade(store: Path) -> None:
    """Rewrite a store in the layout of plylab before texts were shared (31b6ae8): no `texts` table
    or triggers, every text inline in the cache rows and in each attempt."""
    from plylab.harness.store import expand_attempts
    from plylab.harness.text_homes import text_at_home
    from plylab.models.cache import stored_text

    conn = sqlite3.connect(store)
    conn.row_factory = sqlite3.Row

    def inline(value: Any) -> Any:
        if isinstance(value, dict) and set(value) == {"$text"}:
            return stored_text(conn, value["$text"], text_at_home)
        return value

    for key, request, reply in conn.execute("SELECT key, request, reply FROM responses").fetchall():
        req, rep = json.loads(request), json.loads(reply)
        req["messages"] = [{**m, "content": inline(m["content"])} for m in req["messages"]]
        rep = {k: inline(v) for k, v in rep.items()}
        conn.execute(
            "UPDATE responses SET request=?, reply=? WHERE key=?", (json.dumps(req), json.dumps(rep), key)
        )
    for m in conn.execute("SELECT * FROM moves WHERE attempts IS NOT NULL").fetchall():
        attempts = json.dumps(expand_attempts(json.loads(m["attempts"]), m))
        conn.execute(
            "UPDATE moves SET attempts=? WHERE game_id=? AND ply=?", (attempts, m["game_id"], m["ply"])
        )
    for name in ("moves_keep_texts", "clue_turns_keep_texts"):
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    conn.execute("DROP TABLE texts")
    conn.execute("PRAGMA user_version=0")  # a store from before versions
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


@pytest.mark.slow
def test_a_store_written_before_is_read_and_resumed(cli, long_server, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli(*run_args(long_server, store)).code == 0
    sent = list(long_server.sent)
    downgrade(store)
    with sqlite3.connect(store) as conn:
        assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'texts'").fetchall()
        assert conn.execute("SELECT COUNT(*) FROM responses WHERE reply LIKE '%$text%'").fetchone()[0] == 0
    conn.close()
    before = store.read_bytes()

    # read: report, export and the site show it whole, and leave the file as it was
    assert cli("report", "--store", str(store)).code == 0
    assert cli("export", str(tmp_path / "m.csv"), "--store", str(store), "--table", "moves").code == 0
    csv.field_size_limit(1 << 30)
    rows = list(csv.DictReader(open(tmp_path / "m.csv")))
    assert sorted((r["reply"], r["reasoning"]) for r in rows if r["reply"]) == sorted(sent)
    assert all(json.loads(r["attempts"])[-1]["reply"] == r["reply"] for r in rows if r["reply"])
    assert cli("report", "--store", str(store), "--html", str(tmp_path / "site")).code == 0
    assert store.read_bytes() == before

    # resume: a game lost from the old store is played again from its inline cache rows
    with sqlite3.connect(store) as conn:
        conn.execute("DELETE FROM moves WHERE game_id = (SELECT MAX(id) FROM games)")
        conn.execute("DELETE FROM games WHERE id = (SELECT MAX(id) FROM games)")
    conn.close()
    calls = len(long_server.requests)
    res = cli(*run_args(long_server, store))
    assert res.code == 0, res.err
    assert len(long_server.requests) == calls, "the old cache rows answered"
    assert sorted(stored_replies(store)) == sorted(sent)


@pytest.mark.slow
def test_a_clue_turn_stores_its_long_reply_once(cli, long_server, tmp_path):
    store = tmp_path / "clue.sqlite"
    long_server.clue = True
    seats = ["clue-llm:model=openai-api/long/clue", "clue-random", "clue-random"]
    args = ["clue", "run", *[a for s in seats for a in ("--player", s)], "--games", "1", "--turn-limit", "6"]
    args += ["--seed", "2", "--store", str(store), "--quiet"]
    assert cli(*args).code == 0
    turns = [(t["reply"], t["reasoning"], t["prompt"]) for t in clue_turns(store) if t["reply"] is not None]
    assert sorted((r, why) for r, why, _ in turns) == sorted(long_server.sent) and len(turns) >= 2
    wire = distinct_bytes(long_server) + sum(
        len(p.encode()) for *_, p in turns
    )  # a turn keeps its chat as JSON
    assert file_bytes(store) < 1.3 * wire, f"store {file_bytes(store)} B for {wire} B of distinct text"
    asked = len(long_server.requests)
    with sqlite3.connect(store) as conn:  # the game is lost: it is played again from the cache
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("DELETE FROM games")
    conn.close()
    assert cli(*args).code == 0
    assert len(long_server.requests) == asked
    again = [(t["reply"], t["reasoning"]) for t in clue_turns(store) if t["reply"] is not None]
    assert sorted(again) == sorted(long_server.sent)
