"""What a plylab sample keeps, typed: inspect's per-sample store (`StoreModel`), written by the tasks'
solvers and read back, as the same types, by their scorers, by `inspect score` and from a log.

A sample's store is saved in its log (`EvalSample.store`) as JSON, where an integer key is a string;
reading it through these models (`TaskState.store_as`, `EvalSample.store_as`) validates it back into
plylab's own record (`values` and `scores` keyed by action again), so nothing reading a log converts
a field by hand. The JSON a record only carries (a stored grade, an attempt, a game's annotation)
stays a dict, as the record declares it.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Any

from inspect_ai.util import StoreModel
from pydantic import BeforeValidator
from pydantic.dataclasses import dataclass as pydantic_dataclass
from pydantic.dataclasses import rebuild_dataclass

from ..harness.records import GameRecord
from ..suites.answer import Answer

__all__ = ["GamePlayed", "SuiteAnswered"]

# A game's record as pydantic reads it from JSON (a subclass of `GameRecord`, so it is one). The
# record names, for its JSON-only fields, types its module imports for the type checker alone
# (TypedDicts, a recursive alias): read as the dicts they are. inspect reads a store's field with
# the field's bare type, so the type carries its schema itself.
if TYPE_CHECKING:
    _ReadRecord = GameRecord
else:
    _ReadRecord = pydantic_dataclass(GameRecord)
    rebuild_dataclass(
        _ReadRecord,
        _types_namespace={
            "AttemptRecord": dict[str, Any],
            "StoredGrade": dict[str, Any],
            "JSONObject": dict[str, Any],
        },
    )


def _as_read(value: object) -> object:
    """A record the session made (a plain `GameRecord`) as its fields, for the model to check."""
    return asdict(value) if isinstance(value, GameRecord) and not isinstance(value, _ReadRecord) else value


class GamePlayed(StoreModel):
    """A `plylab/game` or `plylab/clue` sample: the game's record as plylab's session wrote it (every
    move, its state, its grade, the model's attempts); None until the game is played."""

    record: Annotated[_ReadRecord | None, BeforeValidator(_as_read)] = None


class SuiteAnswered(StoreModel):
    """A `plylab/suite` sample: the answer to its position as `plylab suite run` records one."""

    answer: Answer | None = None
