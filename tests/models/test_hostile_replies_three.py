"""A reply under the size cap is still bounded (issue 31, point 3): its memory by the number of JSON
values it holds, and `timeout=` bounds the whole move, parsing included.

Before: a 14.4 MB reply of 150,000 choices peaked at 1.07 GB and, with `timeout=5`, a move took
22-24 s and was accepted; 5 M empty lists in an extra field reached 1.58 GB.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from plylab.models import GenerateConfig, ModelError, get_model
from plylab.models.wire import MAX_REPLY_BYTES, MAX_REPLY_VALUES, UnsafeReply, _ValueCounter
from tests.models.hostile_server import Hostile, HostileServer, completion
from tests.models.test_hostile_world import MEASURE, _huge_valid_reply

KEY = "sk-test-hostile-replies-three-0123"
HI = [{"role": "user", "content": "hi"}]


@pytest.fixture
def hostile(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOSTILE_API_KEY", KEY)
    with HostileServer() as server:
        yield server


def _many_choices() -> str:
    body = _huge_valid_reply(150_000)
    assert len(body) < MAX_REPLY_BYTES  # under the size cap: only the value count refuses it
    return body


def _empty_lists() -> str:
    body = completion('"ANSWER: 1"')
    lists = "[" + ",".join(["[]"] * 5_000_000) + "]"
    out = body[:-1] + f', "extra": {lists}}}'
    assert len(out) < MAX_REPLY_BYTES
    return out


@pytest.mark.slow
@pytest.mark.parametrize("make", [_many_choices, _empty_lists], ids=["150k-choices", "5M-empty-lists"])
def test_a_reply_of_too_many_values_is_a_bad_reply_at_once(hostile, make) -> None:  # noqa: ANN001
    model = get_model("openai-api/hostile/many", base_url=hostile.url, backoff=0.01)
    hostile.queue(*[Hostile(body=make())] * 3)
    started = time.monotonic()
    with pytest.raises(ModelError) as err:
        asyncio.run(model.generate(HI, config=GenerateConfig(timeout=60, max_retries=2)))
    assert (
        err.value.kind == "bad_reply" and f"more than {MAX_REPLY_VALUES:,} JSON values" in err.value.message
    )
    assert len(hostile.requests) == 1 and time.monotonic() - started < 20


@pytest.mark.slow
def test_a_long_text_reply_is_one_value_and_reads(hostile) -> None:
    model = get_model("openai-api/hostile/long", base_url=hostile.url, backoff=0.01)
    text = "ANSWER: 1 " + "a, [b], {c}, \\\\ " * 100_000  # commas and brackets inside the string
    hostile.queue(Hostile(body=completion('"' + text + '"'), gzip=True))
    reply = asyncio.run(model.generate(HI, config=GenerateConfig(max_retries=0)))
    assert reply.text.startswith("ANSWER: 1") and len(reply.text) >= 1_000_000  # (the text cap)


def test_the_value_counter_reads_escapes_across_chunks() -> None:
    counter = _ValueCounter(3)
    for chunk in (b'{"a": "x\\', b'"", [1', b"]}"):  # the escaped quote is cut between chunks
        counter.feed(chunk)
    assert counter.count == 3 and not counter.quoted  # `{`, `,` and `[`
    with pytest.raises(UnsafeReply, match="more than 3 JSON values"):
        counter.feed(b", [1, 2]")


@pytest.mark.slow
def test_replies_of_many_values_end_the_move_in_bounded_memory(tmp_path: Path, hostile) -> None:
    hostile.queue(Hostile(body=_many_choices()), Hostile(body=_empty_lists()))
    spec = f"llm:model=openai-api/hostile/m,base_url={hostile.url},output=text,timeout=5"
    store = tmp_path / "s.sqlite"
    args = ["run", "--game", "nim", "--player", spec, "--opponent", "random", "--games", "2"]
    started = time.monotonic()
    res = subprocess.run(
        [sys.executable, "-c", MEASURE, *args, "--store", str(store), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HOSTILE_API_KEY": KEY},
    )
    code, peak_mb = (int(v) for v in res.stdout.split())
    assert code == 0, res.stderr
    with sqlite3.connect(store) as conn:
        kinds = [k for (k,) in conn.execute("SELECT failure_kind FROM games ORDER BY id")]
    conn.close()
    assert kinds == ["bad_reply"] * 2
    assert peak_mb < 300, f"peak RSS {peak_mb} MB"
    assert time.monotonic() - started < 60


@pytest.mark.slow
def test_timeout_bounds_the_whole_call_parsing_included(hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reply read in time but parsed past the deadline (work that never yields to the event loop,
    as an SDK's parse does) is a timeout, not an accepted move."""
    import plylab.models.model as door

    real = door._isolated

    async def slow_parse(call):  # noqa: ANN001, ANN202
        out = await real(call)
        time.sleep(1.5)  # blocking, like a large reply's parse
        return out

    monkeypatch.setattr(door, "_isolated", slow_parse)
    model = get_model("openai-api/hostile/slow", base_url=hostile.url, backoff=0.01)
    hostile.queue(Hostile(body=completion('"ANSWER: 1"')))
    with pytest.raises(ModelError) as err:
        asyncio.run(model.generate(HI, config=GenerateConfig(timeout=1, max_retries=0)))
    assert err.value.kind == "timeout" and "timeout=1 s" in err.value.message  # never accepted


# -- issue 31, point 9: a server that answers 500 until the deadline failed; it was not slow ----------

HTML_500 = "<html><head><title>500 Internal Server Error</title></head><body><h1>Oops</h1></body></html>"


@pytest.mark.slow
def test_an_html_500_page_until_the_deadline_is_a_server_error_not_a_timeout(hostile) -> None:
    model = get_model("openai-api/hostile/html", base_url=hostile.url, backoff=0.2)
    hostile.queue(*[Hostile(body=HTML_500, status=500)] * 200)
    with pytest.raises(ModelError) as err:
        asyncio.run(model.generate(HI, config=GenerateConfig(timeout=3, max_retries=50)))
    assert err.value.kind == "provider_error" and "HTTP 500" in err.value.message, err.value
    assert len(hostile.requests) >= 2  # retried, as a 500 may pass
