"""A hostile model server, round two (issue 23, points 1-4 and 15): nested replies, keys in the
client library's warnings, short keys, replies too large to hold, and connection resets.

Every server here is a real loopback server (tests/models/hostile_server.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from plylab.models import GenerateConfig, ModelError, get_model
from plylab.models.jsontext import MAX_DEPTH, BadJSON, parse_json
from plylab.models.wire import MAX_REPLY_BYTES
from tests.models.hostile_server import Hostile, HostileServer, completion
from tests.support.clue import clue_turns

KEY = "sk-test-hostile-world-8a7b6c5d4e3f"
HI = [{"role": "user", "content": "hi"}]
DEEP = 100_000
NESTED_MOVE = '{"action": ' + "[" * DEEP + "]" * DEEP + "}"


@pytest.fixture
def hostile(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOSTILE_API_KEY", KEY)
    with HostileServer() as server:
        monkeypatch.setenv("HOSTILE_BASE_URL", server.url)
        yield server


def rows(store: Path, sql: str) -> list[sqlite3.Row]:
    with sqlite3.connect(store) as conn:
        conn.row_factory = sqlite3.Row
        out = conn.execute(sql).fetchall()
    conn.close()
    return out


def play(cli, store: Path, player: str, run: str, *extra: str):  # noqa: ANN001, ANN201
    args = ["run", "--game", "nim", "--player", player, "--opponent", "random", "--games", "1"]
    return cli(*args, "--store", str(store), "--quiet", "--run", run, *extra)


def llm_moves(store: Path, run: str) -> list[sqlite3.Row]:
    return rows(
        store,
        "SELECT m.* FROM moves m JOIN games g ON g.id = m.game_id JOIN runs r ON r.id = g.run_id "
        f"WHERE r.name = '{run}' AND m.player LIKE 'llm:%' ORDER BY m.game_id, m.ply",
    )


# -- point 1: a deeply nested reply is unparseable, now and when replayed from the cache ---------------


@pytest.mark.parametrize("text", [NESTED_MOVE, "[" * DEEP + "]" * DEEP])
def test_parse_json_refuses_deep_nesting_in_one_line(text: str) -> None:
    with pytest.raises(BadJSON, match=f"nested deeper than {MAX_DEPTH} levels"):
        parse_json(text)
    assert parse_json('{"a": "[[[[" , "b": [[1]]}') == {"a": "[[[[", "b": [[1]]}  # brackets in strings


@pytest.mark.slow
def test_a_deeply_nested_reply_is_unparseable_and_replays_as_a_failure(cli, tmp_path: Path, hostile) -> None:
    store = tmp_path / "s.sqlite"
    spec = f"llm:model=openai-api/hostile/m,base_url={hostile.url},output=json"
    hostile.queue(*[Hostile(body=completion(json.dumps(NESTED_MOVE)))] * 10)
    first = play(cli, store, spec, "first")
    assert first.code == 0, first.err
    (move,) = [m for m in llm_moves(store, "first") if m["failure_kind"]]
    assert move["failure_kind"] == "unparseable"
    asked = len(hostile.requests)
    again = play(cli, store, spec, "again")  # the same jobs: the nested reply comes from the cache
    assert again.code == 0, again.err
    assert len(hostile.requests) == asked
    (move,) = [m for m in llm_moves(store, "again") if m["failure_kind"]]
    assert move["failure_kind"] == "unparseable"


def test_clue_and_reaper_read_a_nested_reply_as_unparseable() -> None:
    from plylab.clue.cards import Deck
    from plylab.clue.prompts import parse_reply
    from plylab.errors import ParseError
    from plylab.players.reaper.schemas import read_planner

    deck = Deck.standard() if hasattr(Deck, "standard") else Deck()
    with pytest.raises(ParseError) as err:
        parse_reply(NESTED_MOVE, deck, 3)
    assert err.value.kind == "unparseable" and "nested deeper" in str(err.value)
    with pytest.raises(ValueError, match="invalid JSON .nested deeper"):
        read_planner('{"kind": "plan", "subtask_1": ' + "[" * DEEP + "]" * DEEP + "}", 2)


@pytest.mark.slow
def test_clue_run_records_a_nested_reply(cli, tmp_path: Path, hostile) -> None:
    store = tmp_path / "clue.sqlite"
    hostile.queue(*[Hostile(body=completion(json.dumps(NESTED_MOVE)))] * 40)
    seats = ["clue-llm:model=openai-api/hostile/clue", "clue-random", "clue-random"]
    args = ["clue", "run", *[a for s in seats for a in ("--player", s)], "--games", "1"]
    result = cli(*args, "--turn-limit", "6", "--store", str(store), "--quiet")
    assert result.code == 0, result.err
    kinds = {t["failure_kind"] for t in clue_turns(store) if t["prompt"] is not None}
    assert kinds == {"unparseable"}


# -- point 2: the key never reaches stderr through the client library's warnings --------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "body",
    [
        completion(json.dumps([KEY, "ANSWER: 1"])),  # content: a list holding the key
        completion('"ANSWER: 1"', usage=f'{{"prompt_tokens": "{KEY}", "completion_tokens": 3}}'),
    ],
    ids=["content-list", "usage-string"],
)
def test_the_key_never_reaches_stderr(tmp_path: Path, hostile, body: str) -> None:
    hostile.queue(*[Hostile(body=body)] * 20)
    spec = f"llm:model=openai-api/hostile/m,base_url={hostile.url},output=text"
    store = tmp_path / "s.sqlite"
    args = ["run", "--game", "nim", "--player", spec, "--opponent", "random", "--games", "1"]
    res = subprocess.run(
        [sys.executable, "-m", "plylab", *args, "--store", str(store), "--quiet"],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "HOSTILE_API_KEY": KEY, "PYTHONWARNINGS": "default"},
    )
    assert res.returncode == 0, res.stderr
    assert len(hostile.requests) >= 1
    assert KEY not in res.stderr and KEY[:12] not in res.stderr and KEY[-12:] not in res.stderr, res.stderr
    assert KEY not in res.stdout
    with sqlite3.connect(store) as conn:
        assert KEY not in "\n".join(conn.iterdump())
    conn.close()


# -- point 3: a short key is scrubbed too ------------------------------------------------------------


def test_a_short_key_echoed_by_a_server_is_scrubbed(hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    short = "Zq9x7"
    monkeypatch.setenv("HOSTILE_API_KEY", short)
    model = get_model("openai-api/hostile/short", base_url=hostile.url, backoff=0.01)
    hostile.queue(Hostile(body=completion(f'"you sent Bearer {short}; ANSWER: 1"')))
    reply = asyncio.run(model.generate(HI, config=GenerateConfig(max_retries=0)))
    assert short not in reply.text and "Bearer [redacted]" in reply.text
    assert "text: credentials redacted" in reply.flags


# -- point 4: a reply larger than the cap is a bad_reply at once, in bounded memory ----------------------


def _huge_valid_reply(choices: int = 200_000) -> str:
    """A valid chat completion of `choices` choices (about 165 bytes each: 33 MB for 200,000)."""
    one = '{"index": %d, "message": {"role": "assistant", "content": "ANSWER: 1"}, "finish_reason": "stop"}'
    listed = ", ".join(one % i for i in range(choices))
    return (
        '{"id": "x", "object": "chat.completion", "created": 1, "model": "m", '
        f'"choices": [{listed}], "usage": {{"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}}}}'
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "behaviour, why",
    [
        (lambda: Hostile(body=_huge_valid_reply()), "more than 16,777,216"),
        (lambda: Hostile(body=completion('"ANSWER: 1"'), pad=MAX_REPLY_BYTES + 10), "more than 16,777,216"),
        (lambda: Hostile(endless=True), "larger than 16,777,216 bytes on the wire"),
        (lambda: Hostile(body=completion('"ANSWER: 1"'), pad=64 * 2**20, gzip=True), "inflates to more than"),
    ],
    ids=["200k-choices", "padded", "endless", "gzip-bomb"],
)
def test_a_reply_beyond_the_cap_is_a_bad_reply_at_once(hostile, behaviour, why: str) -> None:
    model = get_model("openai-api/hostile/huge", base_url=hostile.url, backoff=0.01)
    hostile.queue(*[behaviour()] * 3)
    with pytest.raises(ModelError) as err:
        asyncio.run(model.generate(HI, config=GenerateConfig(timeout=120, max_retries=2)))
    assert err.value.kind == "bad_reply" and why in err.value.message, err.value
    assert len(hostile.requests) == 1  # the same server would send it again: not retried


def test_a_reply_under_the_cap_still_reads_gzipped(hostile) -> None:
    model = get_model("openai-api/hostile/zipped", base_url=hostile.url, backoff=0.01)
    hostile.queue(Hostile(body=completion('"ANSWER: 1"'), pad=2**20, gzip=True))
    reply = asyncio.run(model.generate(HI, config=GenerateConfig(max_retries=0)))
    assert reply.text == "ANSWER: 1"


MEASURE = """
import resource, subprocess, sys
done = subprocess.run([sys.executable, "-m", "plylab", *sys.argv[1:]], capture_output=True, text=True)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
print(done.stderr, file=sys.stderr)
"""


@pytest.mark.slow
def test_huge_replies_end_the_move_in_bounded_memory(tmp_path: Path, hostile) -> None:
    """`plylab run` against a 33 MB reply, an endless body and a gzip bomb: each move fails as a
    bad_reply, and the process's peak memory stays far below what holding any of them takes."""
    hostile.queue(
        Hostile(body=_huge_valid_reply()),
        Hostile(endless=True),
        Hostile(body=completion('"ANSWER: 1"'), pad=512 * 2**20, gzip=True),
    )
    spec = f"llm:model=openai-api/hostile/m,base_url={hostile.url},output=text,timeout=60"
    store = tmp_path / "s.sqlite"
    args = ["run", "--game", "nim", "--player", spec, "--opponent", "random", "--games", "3"]
    res = subprocess.run(
        [sys.executable, "-c", MEASURE, *args, "--store", str(store), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HOSTILE_API_KEY": KEY},
    )
    code, peak_mb = (int(v) for v in res.stdout.split())
    assert code == 0, res.stderr
    kinds = [g["failure_kind"] for g in rows(store, "SELECT failure_kind FROM games ORDER BY id")]
    assert kinds == ["bad_reply"] * 3
    assert peak_mb < 400, f"peak RSS {peak_mb} MB"  # 172 MB measured (150 MB for well-formed replies)


# -- point 15: a connection reset is a `connection` failure, not a time-out (retried: issue 30 point 8) --


@pytest.mark.slow
def test_a_reset_on_every_attempt_is_a_connection_failure_not_a_timeout(cli, tmp_path: Path, hostile) -> None:
    store = tmp_path / "s.sqlite"
    hostile.queue(*[Hostile(reset=True)] * 20)
    # the old policy keeps the failed move, to read its kind (by default the game is left unfinished)
    spec = f"llm:model=openai-api/hostile/m,base_url={hostile.url},output=text,timeout=60,on_provider_failure=forfeit"
    res = play(cli, store, spec, "reset")
    assert res.code == 0, res.err
    (move,) = [m for m in llm_moves(store, "reset") if m["failure_kind"]]
    assert move["failure_kind"] == "connection"
    assert len(hostile.requests) == 5  # the first attempt and max_retries=4 retries with back-off, no more
