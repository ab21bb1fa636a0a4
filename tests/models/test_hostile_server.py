"""A hostile model server cannot end a run, poison its cache or leak a key (issue 15, points 1 and 2).

A loopback server answers `plylab run` and `plylab clue run` with usage counts beyond 64 bits,
text holding lone UTF-16 surrogates, and replies and errors that quote the credentials in use.
Every move must end recorded -- as a move, or as a failure with its kind -- and nothing stored,
printed or rendered may hold a key.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from plylab.harness.plan import Matchup, default_run_name
from plylab.models import GenerateConfig, ModelError, get_model
from plylab.secrets import scrub
from tests.models.hostile_server import Hostile, HostileServer, completion
from tests.support.clue import clue_turns

KEY = "sk-test-hostile-4c3b2a1908f7e6d5"  # the key the provider sends (from the environment)
USER_PASS = "s3cr3t-pass-123"  # a key written into base_url's user-info
HUGE = (
    '{"prompt_tokens": 1180591620717411303424, "completion_tokens": 18446744073709551616, "total_tokens": -1}'
)
# A reply whose text and reasoning hold lone surrogates (escaped in the JSON, as a server may send them)
SURROGATE_MOVE = completion('"\\ud800 let me think\\n@MOVE@ \\udfff"', usage=HUGE, reasoning='"\\udbff why"')


@pytest.fixture
def hostile(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOSTILE_API_KEY", KEY)
    with HostileServer() as server:  # no key check: it answers whoever asks, and quotes what it was sent
        monkeypatch.setenv("HOSTILE_BASE_URL", server.url)
        yield server


def rows(store: Path, sql: str) -> list[sqlite3.Row]:
    with sqlite3.connect(store) as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute(sql).fetchall()


def dump(store: Path) -> str:
    """Every value in every table of the store, as text."""
    with sqlite3.connect(store) as conn:
        return "\n".join(conn.iterdump())


def llm_moves(store: Path, run: str) -> list[sqlite3.Row]:
    return rows(
        store,
        "SELECT m.* FROM moves m JOIN games g ON g.id = m.game_id JOIN runs r ON r.id = g.run_id "
        f"WHERE r.name = '{run}' AND m.player LIKE 'llm:%' ORDER BY m.game_id, m.ply",
    )


def play(cli, store: Path, player: str, run: str, *extra: str):  # noqa: ANN001, ANN201
    return cli(
        "run",
        "--game",
        "nim",
        "--player",
        player,
        "--opponent",
        "random",
        "--games",
        "1",
        "--store",
        str(store),
        "--quiet",
        "--run",
        run,
        *extra,
    )


# -- point 1: replies that cannot be stored as they came --------------------------------------------


@pytest.mark.slow
def test_run_records_huge_usage_and_lone_surrogates_and_reruns_from_the_cache(cli, tmp_path, hostile):
    store = tmp_path / "s.sqlite"
    spec = f"llm:model=openai-api/hostile/m,base_url={hostile.url},output=text"
    hostile.queue(*[Hostile(body=SURROGATE_MOVE)] * 20)
    first = play(cli, store, spec, "first")
    assert first.code == 0, first.err
    (game,) = rows(store, "SELECT * FROM games")
    assert game["outcome"] != "failure" and game["failure_kind"] is None
    moves = llm_moves(store, "first")
    assert moves and all(m["action"] is not None for m in moves)
    for m in moves:
        assert "\ufffd" in m["reply"] and "\ufffd" in m["reasoning"]
        assert (m["input_tokens"], m["output_tokens"]) == (0, 0)  # not 2^70, not a crash
        assert "lone surrogate" in m["attempts"] and "out of range" in m["attempts"]  # the record says so
    asked = len(hostile.requests)

    # Another run name over the same jobs: every reply comes from the cache, and is just as usable.
    second = play(cli, store, spec, "second")
    assert second.code == 0, second.err
    assert len(hostile.requests) == asked
    assert [m["action"] for m in llm_moves(store, "second")] == [m["action"] for m in moves]


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_a_cached_reply_that_fails_validation_is_asked_again(cli, tmp_path, hostile):
    """It was a `bad_reply` failure read back by every later run of the same jobs: a store one bad
    row spoiled for good. Now it is a miss: asked again, and the new reply replaces it."""
    store = tmp_path / "s.sqlite"
    spec = f"llm:model=openai-api/hostile/m,base_url={hostile.url},output=text"
    assert play(cli, store, spec, "first").code == 0
    with sqlite3.connect(store) as conn:  # what a crash, an old version or a hand edit may leave
        conn.execute("""UPDATE responses SET reply = '{"text": ["not", "text"], "usage": 7'""")
    asked = len(hostile.requests)
    again = play(cli, store, spec, "again")
    assert again.code == 0, again.err
    (game,) = rows(store, "SELECT g.* FROM games g JOIN runs r ON r.id = g.run_id WHERE r.name = 'again'")
    assert game["outcome"] != "failure" and game["failure_kind"] is None
    assert len(hostile.requests) > asked
    more = len(hostile.requests)
    assert play(cli, store, spec, "third").code == 0
    assert len(hostile.requests) == more  # the replies asked again were stored: read back now


def test_usage_that_is_not_a_number_is_flagged_not_fatal(hostile):
    model = get_model("openai-api/hostile/usage", base_url=hostile.url, backoff=0.01)
    hostile.queue(
        Hostile(
            body=completion(
                '"ANSWER: 1"', usage='{"prompt_tokens": -4, "completion_tokens": 12, "total_tokens": 8}'
            )
        )
    )
    reply = asyncio.run(
        model.generate([{"role": "user", "content": "hi"}], config=GenerateConfig(max_retries=0))
    )
    assert reply.usage.input_tokens == 0 and reply.usage.output_tokens == 12
    assert any("input_tokens out of range (-4)" in f for f in reply.flags)


def test_a_runaway_reply_is_capped_and_the_cut_recorded(hostile):
    from plylab.models.sanitize import MAX_TEXT

    model = get_model("openai-api/hostile/long", base_url=hostile.url, backoff=0.01)
    hostile.queue(Hostile(body=completion(json.dumps("ANSWER: 1 " + "x" * (MAX_TEXT + 5000)))))
    reply = asyncio.run(
        model.generate([{"role": "user", "content": "hi"}], config=GenerateConfig(max_retries=0))
    )
    assert len(reply.text) == MAX_TEXT and reply.text.startswith("ANSWER: 1 ")
    assert f"text: truncated to {MAX_TEXT:,} of {MAX_TEXT + 5010:,} characters" in reply.flags


CLUE_REPLY = completion(
    '"{\\"action\\": \\"pass\\", \\"why\\": \\"\\ud800 I was sent Bearer ' + KEY + '\\"}"', usage=HUGE
)


def test_clue_records_hostile_replies(cli, tmp_path, hostile):
    store = tmp_path / "clue.sqlite"
    hostile.queue(*[Hostile(body=CLUE_REPLY)] * 40)
    seats = ["clue-llm:model=openai-api/hostile/clue", "clue-random", "clue-random"]
    args = [
        "clue",
        "run",
        *[a for s in seats for a in ("--player", s)],
        "--games",
        "1",
        "--turn-limit",
        "9",
        "--store",
        str(store),
        "--quiet",
    ]
    result = cli(*args)
    assert result.code == 0, result.err
    turns = [t for t in clue_turns(store) if t["prompt"] is not None]
    assert turns, "the model seat played no turn"
    for t in turns:
        assert t["action"] == "pass" and t["failure_kind"] is None  # a recorded move, parsed as sent
        assert "\ufffd" in t["reply"] and "[redacted]" in t["reply"]
        assert (t["input_tokens"], t["output_tokens"]) == (0, 0)
        assert "lone surrogate" in t["error"] and "out of range" in t["error"]
    assert KEY not in dump(store)
    asked = len(hostile.requests)
    assert cli(*args).code == 0  # resumed: nothing to play, nothing crashes
    assert len(hostile.requests) == asked


# -- point 2: credentials never reach a store, a page or the terminal ------------------------------


def quoting(status: int = 200) -> Hostile:
    """A reply (or an error) repeating the Authorization header it was sent and the key itself."""
    if status != 200:
        body = '{"error": {"message": "bad key: Bearer ' + KEY + '", "type": "auth"}}'
        return Hostile(status=status, body=body)
    text = f'"you sent Authorization: Bearer {KEY} -- and {KEY} and {USER_PASS}\\n@MOVE@"'
    return Hostile(body=completion(text, reasoning=f'"key {KEY}"'))


@pytest.mark.slow
def test_keys_quoted_by_a_server_are_scrubbed_from_store_output_and_pages(cli, tmp_path, hostile):
    store = tmp_path / "s.sqlite"
    base_url = hostile.url.replace("http://", f"http://bob:{USER_PASS}@")
    spec = f"llm:model=openai-api/hostile/m,base_url={base_url},output=text,on_failure=retry:2"
    hostile.queue(quoting(400), *[quoting()] * 20)  # a 400 is not retried by the door: it is an attempt
    result = cli(
        "run",
        "--game",
        "nim",
        "--player",
        spec,
        "--opponent",
        "random",
        "--games",
        "1",
        "--store",
        str(store),
        "--quiet",
    )  # the run is named after the specs
    assert result.code == 0, result.err
    assert hostile.headers[0]["Authorization"].startswith("Basic ")  # the user-info did reach the server
    text = dump(store)
    html = cli("report", "--store", str(store), "--html", str(tmp_path / "site"))
    pages = "".join(p.read_text(errors="replace") for p in (tmp_path / "site").rglob("*") if p.is_file())
    exports = [
        cli("export", str(tmp_path / f"{t}.csv"), "--store", str(store), "--table", t)
        for t in ("runs", "games", "moves")
    ]
    assert all(e.code == 0 for e in exports), [e.err for e in exports]
    exported = "".join(
        (tmp_path / f"{t}.csv").read_text(errors="replace") for t in ("runs", "games", "moves")
    )
    everything = "\n".join([text, result.out, result.err, html.out, html.err, pages, exported])
    basic = hostile.headers[0]["Authorization"].split()[1]
    for secret in (KEY, USER_PASS, basic):
        assert secret not in everything
    assert "[redacted]" in text  # the quotes were kept, the keys were not
    (run,) = rows(store, "SELECT name FROM runs")
    assert "bob" not in run["name"] and USER_PASS not in run["name"]
    failed = [m for m in llm_moves(store, run["name"]) if '"failure"' in (m["attempts"] or "")]
    assert failed and "bad key: Bearer [redacted]" in failed[0]["attempts"]


@pytest.mark.slow
def test_an_error_message_quoting_the_key_is_scrubbed(hostile):
    model = get_model("openai-api/hostile/error", base_url=hostile.url, backoff=0.01)
    hostile.queue(quoting(401))
    with pytest.raises(ModelError) as err:
        asyncio.run(model.generate([{"role": "user", "content": "hi"}], config=GenerateConfig(max_retries=0)))
    assert KEY not in str(err.value) and "[redacted]" in err.value.message


def test_a_key_in_base_url_stays_out_of_the_run_name_and_job_keys():
    url = "https://bob:pw-123456@api.example.com/v1?api_key=qk-77889900&region=eu"
    m = Matchup("nim", "standard", f"llm:model=openai-api/x/m,base_url={url}", "random")
    for text in (default_run_name(m, 0, 10), m.key):
        assert "pw-123456" not in text and "qk-77889900" not in text and "bob" not in text
        assert "api.example.com" in text  # the server itself is still named


def test_scrub_keeps_ordinary_words():
    text = "a basic opening; the bearer of bad news; my key insight"
    assert scrub(text) == text


# -- point 8: timeout= bounds the whole move ---------------------------------------------------------


@pytest.mark.slow
def test_timeout_bounds_the_whole_move_across_re_asks(cli, tmp_path, hostile):
    store = tmp_path / "s.sqlite"
    spec = (
        f"llm:model=openai-api/hostile/slow,base_url={hostile.url},output=text,timeout=1.5,on_failure=retry:6,"
        "on_provider_failure=forfeit"  # keep the timed-out move, to read its attempts
    )
    hostile.queue(*[Hostile(body=completion('"I cannot decide"'), delay=0.4)] * 10)  # unparseable, slowly
    result = play(cli, store, spec, "slow")
    assert result.code == 0, result.err
    move = llm_moves(store, "slow")[0]
    assert move["failure_kind"] == "timeout"  # the move ran out of time, not out of re-asks
    assert move["elapsed"] < 2.5  # not 7 attempts x 0.4 s
    assert 2 <= len(json.loads(move["attempts"])) <= 5


def test_log_records_are_scrubbed(hostile, caplog):
    import logging

    get_model("openai-api/hostile/logs", base_url=hostile.url.replace("http://", f"http://bob:{USER_PASS}@"))
    with caplog.at_level(logging.WARNING):
        logging.getLogger("httpx").warning("retrying %s with Bearer %s", hostile.url, KEY)
        logging.getLogger("inspect_ai.model").warning("server said: %s", USER_PASS)
    logged = caplog.text
    assert KEY not in logged and USER_PASS not in logged and logged.count("[redacted]") == 2


def test_cached_rows_written_before_the_checks_come_back_safe(tmp_path):
    """Rows an earlier version stored (a 2^70 count, a list for text) are made safe on the way back."""
    from plylab.models import ResponseCache

    cache = ResponseCache.open(tmp_path / "s.sqlite")
    rows = {
        "huge": '{"text": "ANSWER: 1", "usage": {"input_tokens": 1180591620717411303424, "output_tokens": 3}}',
        "list": '{"text": ["ANSWER:", 1], "usage": {"input_tokens": 5, "output_tokens": 3}}',
        "surrogate": '{"text": "ANSWER: 1 \\ud800", "usage": {}}',
    }
    for key, body in rows.items():
        cache.conn.execute("INSERT INTO responses VALUES (?, 'm', '{}', ?, 0)", (key, body))
    huge, listed, surrogate = (cache.get(k) for k in rows)
    assert huge.usage.input_tokens == 0 and huge.cached and "out of range" in huge.flags[0]
    assert listed.text == "['ANSWER:', 1]" and "not a string" in listed.flags[0]
    assert surrogate.text.endswith("\ufffd") and "lone surrogate" in surrogate.flags[0]
    cache.close()
