"""Record builders: a game or a move with every field a test does not care about at a neutral value."""

from __future__ import annotations

from typing import Any

from plylab.harness.records import GameRecord, MoveRecord


def move(ply: int = 0, *, player: str = "p", **fields: Any) -> MoveRecord:
    """A move at `ply` (seat alternates with the ply unless given); `fields` override the defaults."""
    base: dict[str, Any] = {
        "seat": ply % 2,
        "state": "",
        "observation": None,
        "legal": [0],
        "action": 0,
        "action_label": None,
        "elapsed": 0.0,
    }
    return MoveRecord(ply=ply, player=player, **{**base, **fields})


def game(moves: list[MoveRecord], **fields: Any) -> GameRecord:
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
