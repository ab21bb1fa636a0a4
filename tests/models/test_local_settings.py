"""The local model's settings and the shape of a reply it answers by a label choice (no model)."""

from __future__ import annotations

import pytest

from plylab.errors import UserError
from plylab.jsontypes import JSONObject
from plylab.models.local import choice_setting, free_cores, threads_setting
from plylab.models.structured import Choice, Fixed, Free, compile_schema
from plylab.players.llm import move_schema
from plylab.players.reaper import schemas


def test_threads_follow_the_free_cores_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLYLAB_LOCAL_THREADS", raising=False)
    assert threads_setting() is None  # chosen before each call
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: set(range(6)))
    assert free_cores(load=1.0) == 6  # only this process runs: every core
    assert free_cores(load=3.2) == 4  # two others running: the four cores they leave
    assert free_cores(load=40.0) == 1
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: set(range(32)))
    assert free_cores(load=0.0) == 8  # at most 8
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0})
    assert free_cores(load=0.0) == 1
    monkeypatch.setenv("PLYLAB_LOCAL_THREADS", "2")
    assert threads_setting() == 2


@pytest.mark.parametrize("bad", ["0", "two", "-1"])
def test_a_bad_thread_count_is_one_clear_line(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv("PLYLAB_LOCAL_THREADS", bad)
    with pytest.raises(UserError, match="PLYLAB_LOCAL_THREADS must be a whole number from 1 to 256"):
        threads_setting()


def test_the_choice_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLYLAB_LOCAL_CHOICE", raising=False)
    assert choice_setting() == "labels"
    monkeypatch.setenv("PLYLAB_LOCAL_CHOICE", "grammar")
    assert choice_setting() == "grammar"
    monkeypatch.setenv("PLYLAB_LOCAL_CHOICE", "trie")
    with pytest.raises(UserError, match="one of labels, grammar"):
        choice_setting()


def parts(schema: JSONObject) -> list[tuple[str, object]]:
    """A plan, readable: ("fixed", text), ("choice", [option texts]), ("free", kind)."""
    plan = compile_schema(schema)
    assert plan is not None
    out: list[tuple[str, object]] = []
    for part in plan:
        if isinstance(part, Fixed):
            out.append(("fixed", part.text))
        elif isinstance(part, Choice):
            out.append(("choice", [o.text for o in part.options]))
        else:
            assert isinstance(part, Free)
            out.append(("free", part.kind))
    return out


def test_a_move_is_written_around_its_one_choice() -> None:
    assert parts(move_schema(["A1", 'say "hi"'], 0)) == [
        ("fixed", '{ "action": "'),
        ("choice", ["A1", 'say \\"hi\\"']),  # JSON-escaped, as the reply writes it
        ("fixed", " }"),
    ]
    assert parts(move_schema(["A1"], 0)) == [("fixed", '{ "action": "A1" }')]  # nothing to choose
    assert parts(move_schema(None, 40)) == [
        ("fixed", '{ "reasoning": "'),
        ("free", "string"),
        ("fixed", ', "action": "'),
        ("free", "string"),
        ("fixed", " }"),
    ]
    plan = compile_schema(move_schema(None, 40))
    assert plan is not None and isinstance(plan[1], Free) and plan[1].body == 'char{0,40} "\\""'
    # the value's grammar runs on into the text after it: `",` may be one token, as under the whole grammar
    assert plan[1].grammar(', "action": "').startswith('root ::= char{0,40} "\\"" ", \\"action\\": \\""')


def test_reaper_messages_are_written_with_their_choices_and_free_values() -> None:
    planner = compile_schema(schemas.planner_schema(["A1", "B2"], 2, final_only=False))
    assert planner is not None
    head, tag = planner
    assert head == Fixed('{ "kind": "') and isinstance(tag, Choice) and tag.closing == '"'
    final, plan = tag.options
    assert (final.text, plan.text) == ("final", "plan")
    assert [p.text if isinstance(p, Fixed) else type(p).__name__ for p in final.then] == [
        ', "answer": "',
        "Choice",
        ', "intent": "',
        "Free",
        " }",
    ]
    assert [p.text if isinstance(p, Fixed) else type(p).__name__ for p in plan.then] == [
        ', "subtask_1": "',
        "Free",
        ', "subtask_2": "',
        "Free",
        " }",
    ]
    reflection = parts(schemas.reflection_schema(1))
    assert ("choice", ["true", "false"]) in reflection and (
        "choice",
        ["helped", "hurt", "neutral"],
    ) in reflection
    assert reflection[-3:] == [("fixed", ' }, "turning_point": '), ("free", "number"), ("fixed", " }")]


@pytest.mark.parametrize(
    "change",
    [
        {"required": ["action"]},  # an optional field may be left out
        {"additionalProperties": True},
        {"properties": {"reasoning": {"type": "string", "pattern": "^a"}, "action": {"type": "string"}}},
        {"properties": {"reasoning": {"type": "array"}, "action": {"type": "string"}}},
        {"properties": {"reasoning": {"type": "integer", "minimum": 0}, "action": {"type": "string"}}},
    ],
)
def test_what_the_writer_cannot_keep_is_left_to_the_grammar(change: JSONObject) -> None:
    assert compile_schema({**move_schema(None, 300), **change}) is None


def test_an_any_of_that_is_not_a_tagged_union_is_left_to_the_grammar() -> None:
    a, b = move_schema(["A1"], 0), move_schema(None, 300)  # first properties differ
    assert compile_schema({"anyOf": [a, b]}) is None
    final = schemas.final_schema(None)
    assert compile_schema({"anyOf": [final, final]}) is None  # the tag "final" in two branches
    assert compile_schema({"type": "boolean"}) is None  # a choice needs written text before it
    assert compile_schema({"type": "integer"}) is None  # nothing after it to end its grammar


def test_a_value_ends_where_the_text_after_it_begins() -> None:
    string, number = Free("", "string"), Free("", "number")
    assert string.end(b'abc", "') == 4 and string.end(b'a\\\\"') == 4  # after the quote
    assert string.end(b'a\\"') is None and string.end(b"abc") is None  # an escaped quote
    assert number.end(b"-12.5e3 }") == 7 and number.end(b"12,") == 2 and number.end(b"12") is None
