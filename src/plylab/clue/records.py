"""Clue games as the metrics, the site and the paper tables read them, from the one store schema.

A Clue run is a `runs` row of kind `clue`, its games are `games` rows (the game's summary in
`extra`), and its turns are the moves whose annotation the Clue game wrote (`game.py`). This
reader gives them back as one row per game, per turn and per (turn, seat) of knowledge, the
shape every Clue report reads; games an older plylab stored in its own tables are read in place
(`legacy.py`) in the same shape, so old and new stores report alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..harness.rows import MoveRow
from ..harness.store import Store, json_text
from ..players.canonical import canonical_spec
from . import legacy

KIND = "clue"  # the runs' kind


@dataclass(frozen=True)
class ClueRun:
    """One Clue run, wherever its games are stored: the one schema, an older plylab's tables, or both
    (a run stored before the change and resumed after it)."""

    key: str
    condition: str
    seed: int
    turn_limit: int
    specs: list[str]
    run_id: int | None = None  # in `runs`
    legacy_id: int | None = None  # in `clue_runs`


def _flag(value: Any) -> int | None:
    """A stored truth value as the old integer column held it (1, 0 or NULL)."""
    return None if value is None else int(bool(value))


def _text(value: Any) -> str | None:
    return json_text(value)  # as the old columns held it


def turn_row(move: MoveRow, note: dict[str, Any]) -> dict[str, Any]:
    """A Clue turn (its annotation, on the turn's first move) with the mover's model call."""
    attempts = json.loads(move.attempts) if move.attempts else []
    final = attempts[-1] if attempts else {}
    return {
        "turn": note["turn"],
        "round": note["round"],
        "seat": move.seat,
        "action": note["action"],
        "cards": _text(note.get("cards")),
        "disprover": note.get("disprover"),
        "shown": note.get("shown"),
        "correct": _flag(note.get("correct")),
        "envelope_belief": _text(note.get("envelope_belief")),
        "claims": json_text(note.get("claims") or []),
        "ready": _flag(note.get("ready")),
        "failure_kind": move.failure_kind,
        "error": final.get("error"),
        "prompt": move.prompt,
        "reply": move.reply,
        "reasoning": move.reasoning,
        "input_tokens": move.input_tokens,
        "output_tokens": move.output_tokens,
        "reasoning_tokens": move.reasoning_tokens,
        "cost": move.cost,
        "latency": final.get("latency"),
        "cached": _flag(final.get("cached")) if attempts else None,
    }


class ClueRecords:
    """Read-only access to a store's Clue runs, games, turns and knowledge (old tables included)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.store = Store(self.path, create=False)  # one line for a missing, damaged or foreign file
        self.conn = self.store.conn
        try:
            self._runs = self._read_runs()
        except BaseException:
            self.close()
            raise
        if not self._runs:
            self.close()
            raise UserError(
                f"no Clue games in store '{path}'; play some with `plylab clue run --store {path}`"
            )
        self._turns: dict[int, list[dict[str, Any]]] = {}  # the last game's, read twice by the metrics

    def close(self) -> None:
        self.store.close()

    def _read_runs(self) -> list[ClueRun]:
        found: dict[str, ClueRun] = {}
        if legacy.present(self.conn):
            for r in legacy.runs(self.conn):
                specs = json.loads(r["specs"])
                found[r["key"]] = ClueRun(
                    r["key"], r["condition"], r["seed"], r["turn_limit"], specs, None, r["id"]
                )
        for run in self.store.runs():
            if run.kind != KIND:
                continue
            plan = json.loads(run.plan)
            old = found.get(run.name)
            found[run.name] = ClueRun(
                run.name,
                plan["condition"],
                run.seed,
                plan["turn_limit"],
                plan["specs"],
                run.id,
                None if old is None else old.legacy_id,
            )
        return list(found.values())

    def runs(self) -> list[ClueRun]:
        return list(self._runs)

    def games(self) -> list[dict[str, Any]]:
        """Every game, run by run and by index; a legacy game's id is negative (its own table's id)."""
        out: list[dict[str, Any]] = []
        for run in self._runs:
            mine: list[dict[str, Any]] = []
            if run.legacy_id is not None:
                for g in legacy.games(self.conn, run.legacy_id):
                    seats = [canonical_spec(s) for s in json.loads(g["seats"])]
                    mine.append(g | {"id": -g["id"], "seats": json_text(seats), "condition": run.condition})
            if run.run_id is not None:
                for row in self.store.games([run.run_id]):
                    extra = json.loads(row.extra or "{}")
                    mine.append(
                        {
                            "id": row.id,
                            "run_id": row.run_id,
                            "idx": row.idx,
                            "seed": row.seed,
                            "seats": json_text(extra["seats"]),
                            "envelope": json_text(extra["envelope"]),
                            "hands": json_text(extra["hands"]),
                            "winner": extra["winner"],
                            "end_reason": extra["end_reason"],
                            "turns": extra["turns"],
                            "rounds": extra["rounds"],
                            "solution_suggested_turn": extra["solution_suggested_turn"],
                            "started": row.started,
                            "finished": row.finished,
                            "condition": run.condition,
                        }
                    )
            out += sorted(mine, key=lambda g: g["idx"])
        return out

    def run_of(self, game: dict[str, Any]) -> ClueRun:
        """The run a game of `games()` belongs to."""
        legacy_game = game["id"] < 0
        for run in self._runs:
            if (run.legacy_id if legacy_game else run.run_id) == game["run_id"]:
                return run
        raise KeyError(game["id"])

    def _moves(self, game_id: int) -> list[MoveRow]:
        return self.store.moves(game_id)

    def turns(self, game_id: int) -> list[dict[str, Any]]:
        """The game's turns in order (one row per turn, a shown card on its suggestion's row)."""
        if game_id not in self._turns:
            if game_id < 0:
                rows = legacy.turns(self.conn, -game_id)
            else:
                rows = [turn_row(m, json.loads(m.annotation)) for m in self._moves(game_id) if m.annotation]
            self._turns = {game_id: rows}
        return self._turns[game_id]

    def knowledge(self, game_id: int) -> list[dict[str, Any]]:
        """Every seat's standing against the oracle after each turn, by turn and seat."""
        if game_id < 0:
            return legacy.knowledge(self.conn, -game_id)
        out = []
        for m in self._moves(game_id):
            note = json.loads(m.annotation) if m.annotation else None
            for seat, (known, solved, ready) in enumerate((note or {}).get("knowledge", [])):
                out.append(
                    {
                        "game_id": game_id,
                        "turn": note["turn"],  # type: ignore[index]
                        "seat": seat,
                        "oracle_known": known,
                        "oracle_solved": int(solved),
                        "matrix_ready": int(ready),
                    }
                )
        return out
