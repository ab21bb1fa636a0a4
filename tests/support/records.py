"""Record builders: a game or a move with every field a test does not care about at a neutral value."""

from __future__ import annotations

from typing import Any

from plylab.harness.records import GameRecord
from plylab.harness.rows import MoveRow, json_text

# A move's JSON columns, given here as the values they hold (`values` and `scores`: the oracle's
# values and scores of the legal moves, in `values_json` and `scores_json`).
JSON_FIELDS = {"values": "values_json", "scores": "scores_json", "legal": "legal", "grade": "grade"}
JSON_FIELDS |= {"attempts": "attempts", "note": "note", "annotation": "annotation"}


def move(ply: int = 0, *, player: str = "p", **fields: Any) -> MoveRow:
    """A move at `ply` (seat alternates with the ply unless given); `fields` override the defaults,
    its JSON columns (`JSON_FIELDS`) given as the values they hold."""
    base: dict[str, Any] = {"seat": ply % 2, "state": "", "legal": [0], "action": 0}
    given = {**base, **fields}
    return MoveRow(
        ply=ply,
        player=player,
        **{JSON_FIELDS.get(k, k): json_text(v) if k in JSON_FIELDS else v for k, v in given.items()},
    )


def game(moves: list[MoveRow], **fields: Any) -> GameRecord:
    """A finished tic-tac-toe game of `moves`; `fields` override the defaults (a draw, seat 0)."""
    base: dict[str, Any] = {
        "job_key": "k",
        "idx": 0,
        "game": "tic_tac_toe",
        "formulation": "standard",
        "player": "p",
        "opponent": "o",
        "player_seat": 0,
        "seed": 0,
        "returns": [0.0, 0.0],
        "outcome": "draw",
        "forfeit_by": None,
        "failure_kind": None,
        "started": 0.0,
        "finished": 1.0,
    }
    return GameRecord(moves=moves, **{**base, **fields})
