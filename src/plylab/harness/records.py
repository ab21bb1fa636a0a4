"""What a played game is: the game and every move, as plain data the store persists and reports read.

Kept apart from `store.py` so players, sessions and backends can build records without importing SQLite code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..jsontypes import JSONObject

if TYPE_CHECKING:
    from ..models.call import AttemptRecord
    from ..oracles.graded import StoredGrade


@dataclass
class MoveRecord:
    ply: int
    seat: int
    player: str
    state: str
    observation: str | None
    legal: list[int]
    action: int | None
    action_label: str | None
    elapsed: float
    values: dict[int, int] | None = None
    scores: dict[int, int] | None = None
    optimal: bool | None = None
    informative: bool | None = None
    optimal_score: bool | None = None
    informative_score: bool | None = None
    grade: StoredGrade | None = None  # the one scale (oracles.graded.Grade as JSON)
    loss: float | None = None  # the played move's loss on that scale
    prompt: str | None = None
    reply: str | None = None
    reasoning: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None
    calls: int = 0
    cache_hits: int = 0
    failure_kind: str | None = None
    attempts: list[AttemptRecord] | None = None
    note: dict[str, object] | None = None  # the player's trace (players.base.Decision.note)
    annotation: JSONObject | None = None  # the game's own account of the move (harness.hooks.Annotator)


@dataclass
class GameRecord:
    job_key: str
    idx: int
    game: str
    formulation: str
    player: str
    opponent: str
    player_seat: int
    seed: int
    returns: list[float]
    outcome: str
    forfeit_by: int | None
    failure_kind: str | None
    moves: list[MoveRecord]
    started: float
    finished: float
    # the game's own summary (harness.hooks.Annotator.end; Clue's seats and deal), read back by its
    # study as the JSON it wrote: Any until that reader (clue/study.py) narrows what it reads
    extra: dict[str, Any] | None = None
