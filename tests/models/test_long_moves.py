"""Long-thinking moves are not dropped (issue 30 point 8): one attempt's time-out is sized for a
reasoning model and shorter than the move's deadline, so a slow attempt is retried, and a reset
connection is retried with back-off a bounded number of times, against a loopback server."""

from __future__ import annotations

import asyncio

import pytest

from plylab.models import GenerateConfig, ModelError, get_model
from plylab.models.model import REMOTE_DEFAULTS
from tests.models.hostile_server import Hostile, HostileServer
from tests.support.fake_openai_server import Behaviour

HI = [{"role": "user", "content": "hi"}]


def run(coro):
    return asyncio.run(coro)


def test_an_attempt_has_room_for_15k_tokens_and_the_move_for_retries(remote) -> None:
    # 15k generated tokens for one move at high effort (003 Tables 12-13), at a slow 30 tokens/s
    attempt = remote._inspect_config(remote.defaults, None).attempt_timeout
    assert attempt >= 15_000 / 30
    assert REMOTE_DEFAULTS.timeout is not None and REMOTE_DEFAULTS.timeout >= 3 * attempt  # room to retry


@pytest.mark.slow
def test_a_slow_first_attempt_is_retried_and_the_fast_one_answers(server, remote) -> None:
    server.queue(Behaviour(delay=4.0, text="too late"), Behaviour(text="ANSWER: B2"))
    reply = run(remote.generate(HI, config=GenerateConfig(timeout=20, attempt_timeout=1, max_retries=2)))
    assert reply.text == "ANSWER: B2"
    assert len(server.requests) == 2


def test_an_attempt_never_outlives_the_whole_deadline(remote) -> None:
    cfg = remote.defaults.merged(GenerateConfig(timeout=2.5))
    assert remote._inspect_config(cfg, None).attempt_timeout == 3  # min(600, 2.5), whole seconds


@pytest.fixture
def hostile(api_key, monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", api_key)
    with HostileServer(api_key=api_key) as own:
        yield own


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_a_reset_first_connection_is_retried_then_answered(hostile) -> None:
    model = get_model("openai-api/fake/reset-once", base_url=hostile.url, backoff=0.01)
    hostile.queue(Hostile(reset=True), Behaviour(text="ANSWER: A1"))
    reply = run(model.generate(HI, config=GenerateConfig(timeout=30, max_retries=2)))
    assert reply.text == "ANSWER: A1"
    assert len(hostile.requests) == 2


@pytest.mark.slow
def test_a_reset_on_every_attempt_stops_after_max_retries_as_a_connection_failure(hostile) -> None:
    model = get_model("openai-api/fake/reset-always", base_url=hostile.url, backoff=0.01)
    hostile.queue(*[Hostile(reset=True)] * 10)
    with pytest.raises(ModelError) as err:
        run(model.generate(HI, config=GenerateConfig(timeout=30, max_retries=2)))
    assert err.value.kind == "connection"
    assert len(hostile.requests) == 3  # the first attempt and two retries, then no more
