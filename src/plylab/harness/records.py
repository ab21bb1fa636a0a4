"""What a played game is: the game and every move, as plain data the store persists and reports read.

Kept apart from `store.py` so players, sessions and backends can build records without importing the
store. A move is one shape, written and read alike: `rows.MoveRow`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .rows import MoveRow


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
    moves: list[MoveRow]
    started: float
    finished: float
    # the game's own summary (harness.hooks.Annotator.end; Clue's seats and deal), read back by its
    # study as the JSON it wrote: Any until that reader (clue/study.py) narrows what it reads
    extra: dict[str, Any] | None = None
