"""A reply to a JSON schema on the real local model: the fixed text written, not sampled (issue 29.3).

REAPER's own messages, their strings bounded (`maxLength`) so that every reply ends inside its
token budget and can be checked against its schema: a tagged union (plan or final answer), string
enums, booleans, a number, nested objects and free strings."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import jsonschema
import pytest

from plylab.jsontypes import JSONObject, JSONValue
from plylab.models.local import Completion, LocalEngine
from plylab.players.reaper import schemas

pytestmark = pytest.mark.model

ASK = [
    {"role": "system", "content": "You are the planner of an agent playing tic-tac-toe. Reply in JSON."},
    {
        "role": "user",
        "content": "Board:\nX . .\n. O .\n. . .\nYou are X. Legal moves: B1, C1, A2, C2, A3, B3, C3.",
    },
]
LEGAL = ["B1", "C1", "A2", "C2", "A3", "B3", "C3"]


def bounded(schema: JSONValue, chars: int = 24) -> JSONValue:
    """`schema` with every free string at most `chars` long."""
    if isinstance(schema, list):
        return [bounded(s, chars) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: bounded(v, chars) for k, v in schema.items()}
    if out.get("type") == "string" and "enum" not in out:
        out["maxLength"] = chars
    return out


SCHEMAS: dict[str, JSONValue] = {
    "planner": bounded(schemas.planner_schema(LEGAL, 2, final_only=False)),
    "final": bounded(schemas.planner_schema(LEGAL, 2, final_only=True)),
    "reflection": bounded(schemas.reflection_schema(2)),
    "rules": bounded(schemas.rules_schema(2)),
}


@pytest.fixture
def engine(local_model) -> Iterator[LocalEngine]:
    engine = LocalEngine.shared()
    yield engine
    engine.choice = "labels"
    engine.decoder.prefix_reuse = True
    engine.decoder.record = False


def ask(
    engine: LocalEngine,
    schema: JSONValue,
    *,
    temperature: float = 0.0,
    seed: int = 0,
    max_tokens: int = 200,
    cancel: threading.Event | None = None,
) -> Completion:
    assert isinstance(schema, dict)
    return engine.chat(
        ASK, temperature=temperature, max_tokens=max_tokens, seed=seed, schema=schema, cancel=cancel
    )


def text_of(reply: Completion) -> str:
    return reply["choices"][0]["message"]["content"]


@pytest.mark.parametrize("name", list(SCHEMAS))
@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_a_written_reply_follows_its_schema(engine: LocalEngine, name: str, temperature: float) -> None:
    schema = SCHEMAS[name]
    reply = ask(engine, schema, temperature=temperature, seed=11)
    assert reply["choices"][0]["finish_reason"] == "stop"
    text = text_of(reply)
    jsonschema.validate(json.loads(text), schema)
    tokens = engine._llama.tokenize(text.encode(), add_bos=False, special=False)
    assert reply["usage"]["completion_tokens"] == len(tokens)


def test_the_fixed_text_costs_no_sampling(engine: LocalEngine) -> None:
    """Under the whole grammar every token of the reply is one llama.cpp call; written, the fixed
    text goes into the context in the call before each choice or free value."""
    schema = SCHEMAS["final"]
    calls = {}
    for choice in ("grammar", "labels"):
        engine.choice = choice
        engine.decoder.record = True
        reply = ask(engine, schema)
        timings = engine.last
        calls[choice] = sum(op[0] == "decode" for op in timings.ops[timings.prompt_ops :])
        assert reply["choices"][0]["finish_reason"] == "stop"
        out = reply["usage"]["completion_tokens"]
        if choice == "grammar":
            assert calls[choice] >= out - 1
    written = engine._llama.tokenize(b'{ "kind": "final", "answer": "', add_bos=False, special=False)
    assert calls["labels"] <= out - len(written) + 1, calls


@pytest.mark.parametrize("name", ["planner", "reflection"])
def test_kept_prompt_blocks_and_the_seed_decide_a_written_reply(engine: LocalEngine, name: str) -> None:
    schema = SCHEMAS[name]
    engine.decoder.prefix_reuse = True
    ask(engine, SCHEMAS["rules"])  # another prompt before: its blocks are in the context
    kept = [text_of(ask(engine, schema, temperature=1.0, seed=s)) for s in (3, 3, 4)]
    engine.decoder.prefix_reuse = False
    cold = [text_of(ask(engine, schema, temperature=1.0, seed=s)) for s in (3, 3, 4)]
    assert kept == cold and kept[0] == kept[1]


def test_a_free_value_stops_at_the_token_budget(engine: LocalEngine) -> None:
    executor: JSONObject = dict(schemas.EXECUTOR_SCHEMA)  # its free string unbounded
    reply = ask(engine, executor, max_tokens=6)
    assert reply["choices"][0]["finish_reason"] == "length"
    assert reply["usage"]["completion_tokens"] == 6
    assert text_of(reply).startswith('{ "result": "')


def test_a_cancelled_call_stops_at_its_first_free_value(engine: LocalEngine) -> None:
    cancel = threading.Event()
    cancel.set()
    reply = ask(engine, dict(schemas.EXECUTOR_SCHEMA), cancel=cancel)
    assert text_of(reply) == '{ "result": "' and reply["choices"][0]["finish_reason"] == "stop"
