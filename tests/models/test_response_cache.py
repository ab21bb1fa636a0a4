"""The response cache: keyed by what was asked and where in which game; durable; no secrets."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from plylab.harness.store import connect
from plylab.models import GenerateConfig, ModelError, Reply, ResponseCache, Usage, make_key, request_record
from tests.support.fake_openai_server import Behaviour

HI = [{"role": "user", "content": "hi"}]


def key(messages=HI, schema=None, config=None, cache_key="job/0/0", model="m"):
    return make_key(request_record(model, messages, schema, config or GenerateConfig(), cache_key))


def test_key_changes_with_everything_that_decides_the_reply():
    base = key()
    assert key() == base
    assert key(model="other") != base
    assert key(messages=[{"role": "user", "content": "hello"}]) != base
    assert key(schema={"type": "object"}) != base
    assert key(config=GenerateConfig(temperature=0.5)) != base
    assert key(config=GenerateConfig(seed=1)) != base
    assert key(config=GenerateConfig(effort="low")) != base
    assert key(cache_key="job/0/1") != base  # another attempt
    assert key(cache_key="job/1/0") != base  # another ply
    assert key(cache_key="other-job/0/0") != base  # the same prompt in another game: a new sample


def test_key_ignores_how_a_reply_is_fetched():
    assert key(config=GenerateConfig(timeout=5, max_retries=9)) == key()


def test_round_trip_and_durability(tmp_path):
    store = tmp_path / "s.sqlite"
    cache = ResponseCache.open(store)
    reply = Reply(
        text="A1", reasoning="r", usage=Usage(input_tokens=3, output_tokens=2, cost=0.01), latency=1.5
    )
    k = key()
    request = request_record("m", HI, None, GenerateConfig(), "job/0/0")
    assert cache.get(k) is None
    cache.put(k, request, reply)
    # another connection sees it at once: written, not pending in a transaction
    other = sqlite3.connect(store)
    assert other.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 1
    other.close()
    back = cache.get(k)
    assert back == reply.model_copy(update={"cached": True})
    assert (cache.hits, cache.misses) == (1, 1)
    cache.close()


@pytest.mark.parametrize(
    "row",
    ['{"text": ["not", "text"]', "[1, 2]", '{"text": "A1", "latency": "slow"}', '{"text": "A1", "flags": 5}'],
    ids=["cut short", "not an object", "refused latency", "refused flags"],
)
def test_a_cached_reply_that_fails_validation_is_a_miss_and_is_replaced(tmp_path, row):
    """It was a `bad_reply` failure each time it was read: every later run of the same jobs met it
    again. A miss is asked again, and the new reply replaces the row."""
    cache = ResponseCache.open(tmp_path / "s.sqlite")
    k, request = key(), request_record("m", HI, None, GenerateConfig(), "job/0/0")
    cache.put(k, request, Reply(text="A1"))
    cache.conn.execute("UPDATE responses SET reply=? WHERE key=?", (row, k))
    assert cache.get(k) is None and (cache.hits, cache.misses) == (0, 1)
    cache.put(k, request, Reply(text="B2"))
    back = cache.get(k)
    assert back is not None and back.text == "B2" and back.cached
    cache.close()


def test_a_reply_that_would_not_read_back_is_not_cached(tmp_path):
    """Validated before it is stored: a latency that JSON cannot hold (NaN) would read back as no
    reply; it is not stored, so the next run asks again instead of meeting it."""
    cache = ResponseCache.open(tmp_path / "s.sqlite")
    k, request = key(), request_record("m", HI, None, GenerateConfig(), "job/0/0")
    cache.put(k, request, Reply(text="A1", latency=float("nan")))
    assert len(cache) == 0 and cache.get(k) is None
    cache.close()


def test_cache_shares_the_store_connection(tmp_path):
    conn = connect(tmp_path / "s.sqlite")
    cache = ResponseCache(conn)
    cache.put("k", {"model": "m"}, Reply(text="x"))
    assert len(cache) == 1
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"responses", "runs", "games", "moves"} <= tables


def test_second_call_hits_and_another_cache_key_misses(server, remote, tmp_path):
    cache = ResponseCache.open(tmp_path / "s.sqlite")
    config = GenerateConfig(temperature=1.0)
    first = asyncio.run(remote.generate(HI, config=config, cache=cache, cache_key="job-a/3/0"))
    again = asyncio.run(remote.generate(HI, config=config, cache=cache, cache_key="job-a/3/0"))
    assert len(server.requests) == 1
    assert not first.cached and again.cached
    assert again.text == first.text and again.usage == first.usage
    other = asyncio.run(remote.generate(HI, config=config, cache=cache, cache_key="job-b/3/0"))
    assert not other.cached and len(server.requests) == 2
    assert len(cache) == 2


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_failed_calls_are_not_cached_but_empty_replies_are(server, remote, tmp_path):
    cache = ResponseCache.open(tmp_path / "s.sqlite")
    server.queue(Behaviour(status=500))
    with pytest.raises(ModelError):
        asyncio.run(remote.generate(HI, config=GenerateConfig(max_retries=0), cache=cache, cache_key="j/0/0"))
    assert len(cache) == 0  # a resumed run asks again
    server.queue(Behaviour(text=""))
    for _ in range(2):
        with pytest.raises(ModelError) as err:
            asyncio.run(remote.generate(HI, cache=cache, cache_key="j/1/0"))
        assert err.value.kind == "empty"
    assert len(server.requests) == 2 and err.value.reply is not None and err.value.reply.cached


def test_the_api_key_never_lands_in_the_store(server, remote, api_key, tmp_path):
    store = tmp_path / "s.sqlite"
    cache = ResponseCache.open(store)
    asyncio.run(remote.generate(HI, cache=cache, cache_key="j/0/0"))
    cache.close()
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("s.sqlite"))
    assert b"/v1" in data or b"fake" in data  # the request is there...
    assert api_key.encode() not in data  # ...the key is not
