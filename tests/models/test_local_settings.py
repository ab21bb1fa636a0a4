"""The local model's settings and the shape of a reply it answers by a label choice (no model)."""

from __future__ import annotations

import pytest

from plylab.errors import UserError
from plylab.models.choice import enum_fields
from plylab.models.local import choice_setting, free_cores, threads_setting
from plylab.players.llm import move_schema


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


def test_only_an_object_of_string_enums_is_a_label_choice() -> None:
    assert enum_fields(move_schema(["A1", "B2"], 0)) == [("action", ["A1", "B2"])]
    assert enum_fields(move_schema(None, 0)) is None  # output=json: the action is free text
    assert enum_fields(move_schema(["A1"], 300)) is None  # a free reasoning field comes first
    assert enum_fields({"anyOf": [move_schema(["A1"], 0)]}) is None
    two = {
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": ["final"]}, "answer": {"enum": ["A1", "A1", "C3"]}},
        "required": ["kind", "answer"],
        "additionalProperties": False,
    }
    assert enum_fields(two) == [("kind", ["final"]), ("answer", ["A1", "C3"])]
    assert enum_fields({**two, "required": ["answer"]}) is None  # an optional field may be left out
