"""The JSON messages between REAPER's components (Baseline and REAPER; the Original uses prose).

Each schema constrains a component's output (a grammar for the local model, strict structured
outputs for hosted ones), and the matching `read_*` function validates the reply. Only keywords
every backend honours are used — type, enum, properties, required, additionalProperties — so
lists are numbered fields (`subtask_1..s`, `move_1..n`, `rule_1..m`), all required, where an
empty string means "none": a length bound no backend can drop, and one that a small model
cannot run past.
"""

from __future__ import annotations

from typing import Literal, TypedDict, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from ...jsontypes import JSONObject, JSONValue
from ...models.jsontext import BadJSON, parse_json

M = TypeVar("M", bound="Message")


class Message(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Final(Message):
    kind: Literal["final"]
    answer: str
    intent: str


class ExecutorResult(Message):
    result: str


class Description(Message):
    description: str


class MoveReflection(Message):
    quality: Literal["sound", "unsound"]
    contribution: Literal["helped", "hurt", "neutral"]
    intent_achieved: bool
    lesson: str


class Reflection(TypedDict):
    """One move's judgement as a case keeps it (`Case.reflection`, JSON in the memory)."""

    quality: Literal["sound", "unsound"]
    contribution: Literal["helped", "hurt", "neutral"]
    intent_achieved: bool
    lesson: str
    turning_point: bool


def _string(description: str) -> JSONObject:
    return {"type": "string", "description": description}


def _enum(*values: str) -> JSONObject:
    members: list[JSONValue] = list(values)
    return {"type": "string", "enum": members}


def _object(properties: JSONObject) -> JSONObject:
    required: list[JSONValue] = list(properties)
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _numbered(prefix: str, n: int, item: JSONObject) -> JSONObject:
    return {f"{prefix}_{i}": item for i in range(1, n + 1)}


# -- schemas ---------------------------------------------------------------------------------


def final_schema(legal: list[str] | None) -> JSONObject:
    """A final answer; `legal` (when given) restricts the answer to the legal move labels."""
    return _object(
        {
            "kind": _enum("final"),
            "answer": _string("the move to play") if legal is None else _enum(*legal),
            "intent": _string("one sentence: what this move is meant to achieve"),
        }
    )


def plan_schema(subtasks: int) -> JSONObject:
    return _object(
        {"kind": _enum("plan"), **_numbered("subtask", subtasks, _string("an analysis step, or empty"))}
    )


def planner_schema(legal: list[str] | None, subtasks: int, *, final_only: bool) -> JSONObject:
    """Plan or final answer; on the last iteration only a final answer is accepted."""
    return final_schema(legal) if final_only else {"anyOf": [final_schema(legal), plan_schema(subtasks)]}


EXECUTOR_SCHEMA = _object({"result": _string("the answer to the subtask, briefly")})
DESCRIPTOR_SCHEMA = _object({"description": _string("the position in plain words, briefly")})


def reflection_schema(moves: int) -> JSONObject:
    move = _object(
        {
            "quality": _enum("sound", "unsound"),
            "contribution": _enum("helped", "hurt", "neutral"),
            "intent_achieved": {"type": "boolean"},
            "lesson": _string("a short lesson for future play"),
        }
    )
    return _object(
        {
            **_numbered("move", moves, move),
            "turning_point": {
                "type": "integer",
                "description": "the move number that decided the game, 0 if none",
            },
        }
    )


def rules_schema(max_rules: int) -> JSONObject:
    return _object(_numbered("rule", max_rules, _string("one general strategic rule, or empty")))


# -- reading replies -------------------------------------------------------------------------


def _object_of(text: str) -> JSONObject:
    t = text.strip()
    if t.startswith("```"):  # hosted models sometimes fence JSON even under a schema
        t = t.split("\n", 1)[1] if "\n" in t else t[3:]
        t = t.rsplit("```", 1)[0]
    try:
        obj = parse_json(t, strict=False)  # a raw newline inside a string is still what was meant
    except BadJSON as exc:
        raise ValueError(f"invalid JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise ValueError("expected a JSON object")
    return obj


def _valid(model: type[M], obj: object, where: str) -> M:
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in (where, *first["loc"]) if p)
        raise ValueError(f"{loc or 'reply'}: {first['msg']}") from None


def _texts(obj: JSONObject, prefix: str, n: int) -> list[str]:
    return [
        v.strip() for i in range(1, n + 1) if isinstance(v := obj.get(f"{prefix}_{i}"), str) and v.strip()
    ]


def read(model: type[M], text: str) -> M:
    return _valid(model, _object_of(text), "")


def read_planner(text: str, subtasks: int) -> Final | list[str]:
    """A final answer, or a plan's non-empty subtasks."""
    obj = _object_of(text)
    if obj.get("kind") == "plan":
        steps = _texts(obj, "subtask", subtasks)
        if not steps:
            raise ValueError("a plan with no subtasks")
        return steps
    return _valid(Final, obj, "")


def read_reflection(text: str, moves: int) -> tuple[list[MoveReflection | None], int]:
    """Per-move judgements (None where a move's entry is missing or malformed) and the turning point."""
    obj = _object_of(text)
    out: list[MoveReflection | None] = []
    for i in range(1, moves + 1):
        try:
            out.append(_valid(MoveReflection, obj.get(f"move_{i}"), f"move_{i}"))
        except ValueError:
            out.append(None)
    if not any(out):
        raise ValueError("no move was judged")
    turning = obj.get("turning_point")
    return out, turning if isinstance(turning, int) else 0


def read_rules(text: str, max_rules: int) -> list[str]:
    return list(dict.fromkeys(_texts(_object_of(text), "rule", max_rules)))
