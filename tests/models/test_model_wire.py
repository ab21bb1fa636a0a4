"""The model door against a real HTTP server on 127.0.0.1 speaking the OpenAI chat API."""

from __future__ import annotations

import asyncio

import pytest

from plylab.errors import UserError
from plylab.models import GenerateConfig, ModelError, get_model
from tests.support.fake_openai_server import Behaviour

HI = [{"role": "user", "content": "hi"}]
SCHEMA = {
    "type": "object",
    "properties": {"action": {"type": "string", "enum": ["A1", "B2"]}},
    "required": ["action"],
    "additionalProperties": False,
}


def run(coro):
    return asyncio.run(coro)


def test_request_body_carries_messages_sampling_effort_and_schema(server, remote, api_key):
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "your move"}]
    config = GenerateConfig(temperature=0.7, max_tokens=33, seed=5, effort="high")
    reply = run(remote.generate(messages, schema=SCHEMA, config=config))
    assert reply.text and not reply.cached
    body = server.requests[-1]
    assert body["model"] == "test-model"
    assert body["messages"] == messages
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.7, 33, 5)
    assert body["reasoning_effort"] == "high"
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"]["properties"]["action"]["enum"] == ["A1", "B2"]
    assert server.headers[-1]["Authorization"] == f"Bearer {api_key}"


def test_reasoning_and_usage_come_back(server, remote):
    server.queue(
        Behaviour(
            text="ANSWER: B2",
            reasoning="the centre is strongest",
            usage={"prompt_tokens": 120, "completion_tokens": 30},
            reasoning_tokens=21,
        )
    )
    reply = run(remote.generate(HI))
    assert reply.text == "ANSWER: B2"
    assert reply.reasoning == "the centre is strongest"
    assert (reply.usage.input_tokens, reply.usage.output_tokens, reply.usage.reasoning_tokens) == (
        120,
        30,
        21,
    )
    assert reply.latency > 0 and reply.stop_reason == "stop"


@pytest.mark.parametrize(
    "status", [pytest.param(500, marks=pytest.mark.slow), 502, pytest.param(503, marks=pytest.mark.slow), 429]
)
def test_transient_errors_are_retried_by_inspect_alone(server, remote, status):
    server.queue(Behaviour(status=status), Behaviour(status=status), Behaviour(text="ok"))
    reply = run(remote.generate(HI, config=GenerateConfig(max_retries=3)))
    assert reply.text == "ok"
    assert len(server.requests) == 3  # no SDK retries stacked underneath


def test_sdk_does_not_retry_underneath(server, remote):
    server.queue(Behaviour(status=503))
    with pytest.raises(ModelError) as err:
        run(remote.generate(HI, config=GenerateConfig(max_retries=0)))
    assert err.value.kind == "provider_error" and "503" in err.value.message
    assert len(server.requests) == 1


@pytest.mark.slow
def test_retries_back_off_on_our_schedule(server, monkeypatch):
    model = get_model("openai-api/fake/backoff", base_url=server.url, backoff=0.3)
    server.queue(Behaviour(status=500), Behaviour(text="ok"))
    run(model.generate(HI, config=GenerateConfig(max_retries=1)))
    gap = server.times[1] - server.times[0]
    assert 0.3 <= gap < 5.0  # initial wait 0.3 s (+ jitter up to 0.3 s), not inspect's 3 s default


def test_exhausted_retries_name_the_cause(server, remote):
    server.queue(*[Behaviour(status=429)] * 3)
    with pytest.raises(ModelError) as err:
        run(remote.generate(HI, config=GenerateConfig(max_retries=2)))
    assert err.value.kind == "rate_limit"
    assert len(server.requests) == 3


@pytest.mark.slow
def test_client_errors_are_not_retried(server, remote):
    server.queue(Behaviour(status=400))
    with pytest.raises(ModelError) as err:
        run(remote.generate(HI, config=GenerateConfig(max_retries=3)))
    assert err.value.kind == "provider_error" and "400" in err.value.message
    assert "\n" not in err.value.message
    assert len(server.requests) == 1


@pytest.mark.slow
def test_a_hung_server_is_a_timeout_after_timeout_seconds_in_all(server, remote):
    server.queue(*[Behaviour(delay=5.0)] * 4)
    with pytest.raises(ModelError) as err:
        run(remote.generate(HI, config=GenerateConfig(timeout=1, max_retries=3)))
    assert err.value.kind == "timeout" and "all attempts" in err.value.message
    assert len(server.requests) == 1  # one budget for the call, spent on the first attempt: no retry was sent


@pytest.mark.slow
def test_timeout_bounds_every_retry_together(server, remote):
    server.queue(*[Behaviour(status=500, delay=0.4)] * 12)  # each attempt fails after 0.4 s
    with pytest.raises(ModelError) as err:
        run(remote.generate(HI, config=GenerateConfig(timeout=1.5, max_retries=10)))
    # the server's own error, said as such when the budget ends (issue 31.9: not a "timeout")
    assert err.value.kind == "provider_error"
    assert 2 <= len(server.requests) <= 4  # retried within the budget, then stopped by it (not 11 attempts)


def test_a_failed_attempt_then_a_quick_one_succeeds_within_the_budget(server, remote):
    server.queue(Behaviour(status=503, delay=0.2), Behaviour(text="in time"))
    reply = run(remote.generate(HI, config=GenerateConfig(timeout=2, max_retries=1)))
    assert reply.text == "in time"


@pytest.mark.slow
def test_a_dropped_connection_is_a_connection_error(server, remote):
    server.queue(Behaviour(drop=True))
    with pytest.raises(ModelError) as err:
        run(remote.generate(HI, config=GenerateConfig(max_retries=0)))
    assert err.value.kind == "connection"


@pytest.mark.slow
def test_a_connection_reset_is_a_connection_error_not_a_timeout(api_key, monkeypatch):
    from tests.models.hostile_server import Hostile, HostileServer

    monkeypatch.setenv("FAKE_API_KEY", api_key)
    with HostileServer(api_key=api_key) as own:
        model = get_model("openai-api/fake/resetting", base_url=own.url, backoff=0.01)
        own.queue(*[Hostile(reset=True, delay=0.2)] * 3)
        with pytest.raises(ModelError) as err:
            run(model.generate(HI, config=GenerateConfig(timeout=30, max_retries=2)))
    assert err.value.kind == "connection"
    assert len(own.requests) == 3  # a reset is retried with back-off, max_retries times (issue 30 point 8)


def test_an_empty_reply_is_an_error_that_keeps_its_usage(server, remote):
    server.queue(Behaviour(text="", usage={"prompt_tokens": 40, "completion_tokens": 64}))
    with pytest.raises(ModelError) as err:
        run(remote.generate(HI))
    assert err.value.kind == "empty"
    assert err.value.reply is not None and err.value.reply.usage.output_tokens == 64


def test_the_concurrency_cap_holds(server, api_key):
    from tests.support.fake_openai_server import FakeOpenAIServer

    with FakeOpenAIServer(api_key=api_key) as own:  # no stragglers from other tests
        own.gather = 3  # each request waits until 3 are open: the cap is reached by events, not timing
        model = get_model("openai-api/fake/capped", base_url=own.url, max_connections=3)

        async def many():
            return await asyncio.gather(
                *(model.generate([{"role": "user", "content": str(i)}]) for i in range(12))
            )

        replies = run(many())
        assert len(replies) == 12
        assert own.max_in_flight == 3


@pytest.mark.slow
def test_a_server_that_went_away_mid_run_is_unreachable(server, api_key):
    from tests.support.fake_openai_server import FakeOpenAIServer

    with FakeOpenAIServer(api_key=api_key) as gone:
        model = get_model("openai-api/fake/vanishing", base_url=gone.url, backoff=0.01)
    with pytest.raises(ModelError) as err:
        run(model.generate(HI, config=GenerateConfig(max_retries=1)))
    assert err.value.kind == "unreachable"


# -- up-front checks: one clear line ------------------------------------------------------------


def test_unreachable_server_is_one_clear_error(server):
    with pytest.raises(UserError, match=r"127\.0\.0\.1:9 is unreachable"):
        get_model("openai-api/fake/m", base_url="http://127.0.0.1:9/v1")


def test_rejected_key_is_one_clear_error(server, monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", "sk-wrong")
    with pytest.raises(UserError, match="rejected the API key") as err:
        get_model("openai-api/fake/other", base_url=server.url)
    assert "sk-wrong" not in str(err.value)


def test_missing_key_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        get_model("openai/gpt-5-mini")


@pytest.mark.parametrize(
    "name, message",
    [("gpt-5", "expected 'local' or '<provider>/<model>'"), ("nosuch/model", "unknown provider 'nosuch'")],
)
def test_bad_model_names(name, message):
    with pytest.raises(UserError, match=message):
        get_model(name)


def test_keys_are_never_options():
    with pytest.raises(UserError, match="environment"):
        get_model("openai/gpt-5-mini", api_key="sk-123")


def test_one_instance_per_name_and_options(server):
    a = get_model("openai-api/fake/same", base_url=server.url)
    assert get_model("openai-api/fake/same", base_url=server.url) is a
    assert get_model("openai-api/fake/same", base_url=server.url, max_connections=2) is not a


# -- a server that refuses json_schema (llama-cpp-python's does, with HTTP 500) ----------------------


@pytest.mark.slow
def test_a_refused_json_schema_falls_back_to_json_object_at_once(api_key, monkeypatch):
    from tests.models.hostile_server import HostileServer

    monkeypatch.setenv("FAKE_API_KEY", api_key)
    with HostileServer(api_key=api_key) as own:
        own.refuse_formats = frozenset({"json_schema"})
        model = get_model("openai-api/fake/no-json-schema", base_url=own.url, backoff=0.5)
        reply = run(model.generate(HI, schema=SCHEMA, config=GenerateConfig(max_retries=4)))
        # the refusal is recognised, not retried with back-off: one refused request, then the fallback
        assert [r.get("response_format", {}).get("type") for r in own.requests] == [
            "json_schema",
            "json_object",
        ]
        assert own.requests[1]["response_format"]["schema"] == SCHEMA
        assert any("json_object with the schema" in f for f in reply.flags)  # recorded with the attempt
        run(model.generate(HI, schema=SCHEMA))
        assert own.requests[2]["response_format"]["type"] == "json_object"  # learned once per server


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_a_server_refusing_both_formats_gets_the_schema_in_the_prompt(api_key, monkeypatch):
    from tests.models.hostile_server import HostileServer

    monkeypatch.setenv("FAKE_API_KEY", api_key)
    with HostileServer(api_key=api_key) as own:
        own.refuse_formats = frozenset({"json_schema", "json_object"})
        model = get_model("openai-api/fake/prompt-only", base_url=own.url, backoff=0.5)
        reply = run(model.generate(HI, schema=SCHEMA, config=GenerateConfig(max_retries=4)))
        assert len(own.requests) == 3 and "response_format" not in own.requests[2]
        assert '"enum": ["A1", "B2"]' in own.requests[2]["messages"][-1]["content"]
        assert any("the schema in the prompt only" in f for f in reply.flags)


def test_other_server_errors_are_not_taken_for_a_refused_format(server, remote):
    server.queue(Behaviour(status=500), Behaviour(text='{"action": "A1"}'))
    reply = run(remote.generate(HI, schema=SCHEMA, config=GenerateConfig(max_retries=1)))
    assert reply.flags == () and remote.schema_format == "json_schema"
    assert [r["response_format"]["type"] for r in server.requests] == ["json_schema", "json_schema"]


def test_a_model_error_crosses_processes_whole() -> None:
    """A worker's failure reaches the run's process with its kind, message and reply (pickle, as pools and Ray do)."""
    import pickle

    from plylab.models import Reply

    err = ModelError("timeout", "no reply in 5 s", Reply(text="", stop_reason="max_tokens"))
    back = pickle.loads(pickle.dumps(err))
    assert (back.kind, back.message, str(back)) == ("timeout", "no reply in 5 s", str(err))
    assert back.reply == err.reply
