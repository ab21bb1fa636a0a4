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
    """One played game as the session made it and the store saves it (a row of `games` and its moves)."""

    job_key: str  # the job's key (harness/plan.py): a run saves each key once, so a resumed run skips it
    idx: int  # the game's index within its matchup
    game: str  # the game's name, with its parameters
    formulation: str  # how the position was shown (games.base.Formulation)
    player: str  # the player's spec, canonical (players.canonical)
    opponent: str  # the opponent's spec, canonical
    player_seat: int  # the player's seat
    seed: int  # the job's seed: chance moves and every seat's stream derive from it
    returns: list[float]  # each seat's return
    outcome: str  # from the player's side: win | draw | loss | failure
    forfeit_by: int | None  # the seat that failed, if any
    failure_kind: str | None  # why it failed (the failed move's `failure_kind`, else `failure`)
    moves: list[MoveRow]  # every move, in order (chance moves are not moves)
    started: float  # when the game started and ended (seconds since the epoch)
    finished: float
    # the game's own summary (harness.hooks.Annotator.end; Clue's seats and deal), read back by its
    # study as the JSON it wrote: Any until that reader (clue/study.py) narrows what it reads
    extra: dict[str, Any] | None = None
