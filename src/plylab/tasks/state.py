"""What a plylab sample keeps, typed: inspect's per-sample store (`StoreModel`), written by the tasks'
solvers and read back, as the same types, by their scorers, by `inspect score` and from a log.

A sample's store is saved in its log (`EvalSample.store`) as JSON, where an integer key is a string;
`EvalSample.store_as(GamePlayed)` validates it back into plylab's own record (`values` and `scores`
keyed by action again), so nothing reading a log converts a field by hand. The JSON a record only
carries (a stored grade, an attempt, a game's annotation) stays a dict, as the record declares it.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.util import StoreModel

from ..harness.records import GameRecord
from ..suites.answer import Answer

__all__ = ["GamePlayed", "SuiteAnswered"]


class GamePlayed(StoreModel):
    """A `plylab/game` or `plylab/clue` sample: the game's record as plylab's session wrote it (every
    move, its state, its grade, the model's attempts); None until the game is played."""

    record: GameRecord | None = None


class SuiteAnswered(StoreModel):
    """A `plylab/suite` sample: the answer to its position as `plylab suite run` records one."""

    answer: Answer | None = None


# The records name, for their JSON-only fields, types known to the type checker alone (TypedDicts,
# a recursive alias): read as the dicts they are.
_JSON_ONLY: dict[str, Any] = {
    "AttemptRecord": dict[str, Any],
    "StoredGrade": dict[str, Any],
    "JSONObject": dict[str, Any],
}
GamePlayed.model_rebuild(_types_namespace=_JSON_ONLY)
SuiteAnswered.model_rebuild(_types_namespace=_JSON_ONLY)
