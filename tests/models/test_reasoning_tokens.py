"""Tokens per move are every generated token, reasoning included (003 l.174, l.324), for every usage
shape a provider reports (issue 19, point 1): OpenAI Responses (reasoning tokens inside output tokens),
Anthropic (thinking inside output tokens), Google (thoughts, which the pinned inspect folds into output
tokens, and which an upgrade might report apart), an OpenAI-compatible server with `reasoning_content`
(through a real loopback server, into the table a report prints) and the local model."""

from __future__ import annotations

import asyncio
import json

import pytest
from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, ModelOutput, ModelUsage

from plylab.models.model import _reply
from tests.support.cli import run_args
from tests.support.fake_openai_server import Behaviour, FakeOpenAIServer

VISIBLE, REASONING = 30, 900  # tokens of the answer, tokens of the reasoning before it


def reply_tokens(usage: ModelUsage) -> int:
    """The output tokens plylab stores for a call that inspect reports with `usage`."""
    output = ModelOutput(
        model="m",
        choices=[ChatCompletionChoice(message=ChatMessageAssistant(content="ANSWER: 5"), stop_reason="stop")],
        usage=usage,
    )
    return _reply(output, 0.1).usage.output_tokens


def test_openai_responses_reasoning_tokens_are_counted() -> None:
    from inspect_ai.model._openai_responses import model_usage_from_response_usage
    from openai.types.responses import ResponseUsage

    usage = ResponseUsage.model_validate(
        {
            "input_tokens": 50,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": VISIBLE + REASONING,  # OpenAI: reasoning is part of output tokens
            "output_tokens_details": {"reasoning_tokens": REASONING},
            "total_tokens": 50 + VISIBLE + REASONING,
        }
    )
    assert reply_tokens(model_usage_from_response_usage(usage)) == VISIBLE + REASONING


def test_anthropic_thinking_is_counted() -> None:
    """Anthropic's output_tokens include thinking; inspect passes them on, reasoning a subset."""
    usage = ModelUsage(input_tokens=50, output_tokens=VISIBLE + REASONING, reasoning_tokens=REASONING)
    assert reply_tokens(usage) == VISIBLE + REASONING
    assert reply_tokens(ModelUsage(input_tokens=50, output_tokens=VISIBLE + REASONING)) == VISIBLE + REASONING


@pytest.mark.parametrize(
    "usage",
    [
        # the pinned inspect: candidates + thoughts folded into output, thoughts the detail subset
        ModelUsage(input_tokens=50, output_tokens=VISIBLE + REASONING, reasoning_tokens=REASONING),
        # an inspect that reports thoughts apart from candidates: plylab adds them
        ModelUsage(input_tokens=50, output_tokens=VISIBLE, reasoning_tokens=REASONING),
    ],
    ids=["folded", "apart"],
)
def test_google_thoughts_are_counted(usage: ModelUsage) -> None:
    assert reply_tokens(usage) == VISIBLE + REASONING


@pytest.fixture
def reasoning_server(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("THINK_API_KEY", "sk-think")
    with FakeOpenAIServer(api_key="sk-think") as server:
        yield server


@pytest.mark.parametrize(
    ("completion_tokens", "reasoning_tokens"),
    [(VISIBLE + REASONING, REASONING), (VISIBLE, REASONING)],  # reasoning inside, reasoning apart
    ids=["inside", "apart"],
)
def test_an_openai_compatible_server_with_reasoning_content(
    cli, tmp_path, reasoning_server, completion_tokens, reasoning_tokens
) -> None:
    """Through a real loopback server and a played game into the tokens per move a report prints."""
    store = tmp_path / "s.sqlite"
    usage = {"prompt_tokens": 50, "completion_tokens": completion_tokens}
    reasoning_server.queue(
        *[Behaviour(reasoning="I think, at length.", usage=usage, reasoning_tokens=reasoning_tokens)] * 9
    )
    spec = f"llm:model=openai-api/think/m,base_url={reasoning_server.url}"
    assert cli(*run_args("tic_tac_toe", spec, "optimal", games=1, store=store)).code == 0
    out = cli("report", "--store", str(store), "--table", "tokens", "--by", "formulation", "--format", "json")
    [row] = json.loads(out.out)["rows"]
    assert row["cells"]["standard"]["mean"] == VISIBLE + REASONING


@pytest.mark.model
def test_the_local_model_counts_every_generated_token(local_model) -> None:
    from plylab.models import GenerateConfig

    ask = [{"role": "user", "content": "Write a long story about stones in piles."}]
    reply = asyncio.run(local_model.generate(ask, config=GenerateConfig(max_tokens=24)))
    assert reply.stop_reason == "max_tokens" and reply.usage.output_tokens == 24
