"""Clue games as the metrics, the site and the paper tables read them, from the one store schema.

A Clue run is a `runs` row of kind `clue`, its games are `games` rows (the game's summary in
`extra`), and its turns are the moves whose annotation the Clue game wrote (`game.py`). This
reader gives them back as one row per game, per turn and per (turn, seat) of knowledge, the
shape every Clue report reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError
from ..harness.rows import MoveRow
from ..harness.store import Store
from ..jsontypes import JSONObject, JSONValue
from .report_rows import ClueGameRow, ClueTurnRow, KnowledgeRow, belief, cards, claims, flag, ints

KIND = "clue"  # the runs' kind


@dataclass(frozen=True)
class ClueRun:
    """One Clue run: a `runs` row of kind `clue`."""

    key: str
    condition: str
    seed: int
    turn_limit: int
    specs: list[str]
    run_id: int


def _turn_row(move: MoveRow, note: JSONObject) -> ClueTurnRow:
    """A Clue turn (its annotation, on the turn's first move) with the mover's model call."""
    attempts = json.loads(move.attempts) if move.attempts else []
    final = attempts[-1] if attempts else {}
    turn, rnd, action = note["turn"], note["round"], note["action"]
    assert isinstance(turn, int) and isinstance(rnd, int) and isinstance(action, str), note
    return ClueTurnRow(
        turn, rnd, move.seat, action, cards(note.get("cards")), _int(note.get("disprover")),
        _int(note.get("shown")), flag(note.get("correct")), belief(note.get("envelope_belief")),
        claims(note.get("claims")), flag(note.get("ready")), move.failure_kind, final.get("error"),
        move.prompt, move.reply, move.reasoning, move.input_tokens, move.output_tokens, move.reasoning_tokens,
        move.cost, final.get("latency"), flag(final.get("cached")) if attempts else None,
    )  # fmt: skip


def _int(value: JSONValue) -> int | None:
    assert value is None or isinstance(value, int), value
    return value


class ClueRecords:
    """Read-only access to a store's Clue runs, games, turns and knowledge, as typed rows; its connection stays inside it."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._store = Store(self.path, create=False)  # one line for a missing, damaged or foreign file
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
        self._turns: dict[int, list[ClueTurnRow]] = {}  # the last game's, read twice by the metrics

    def close(self) -> None:
        self._store.close()

    def _read_runs(self) -> list[ClueRun]:
        found: list[ClueRun] = []
        for run in self._store.runs():
            if run.kind != KIND:
                continue
            plan = json.loads(run.plan)
            found.append(
                ClueRun(run.name, plan["condition"], run.seed, plan["turn_limit"], plan["specs"], run.id)
            )
        return found

    def runs(self) -> list[ClueRun]:
        return list(self._runs)

    def games(self) -> list[ClueGameRow]:
        """Every game, run by run and by index."""
        out: list[ClueGameRow] = []
        for run in self._runs:
            mine: list[ClueGameRow] = []
            for row in self._store.games([run.run_id]):
                extra = json.loads(row.extra or "{}")
                mine.append(
                    ClueGameRow(
                        row.id,
                        row.run_id,
                        row.idx,
                        row.seed,
                        list(extra["seats"]),
                        ints(extra["envelope"]),
                        [ints(h) for h in extra["hands"]],
                        extra["winner"],
                        extra["end_reason"],
                        extra["turns"],
                        extra["rounds"],
                        extra["solution_suggested_turn"],
                        row.started,
                        row.finished,
                        run.condition,
                    )  # fmt: skip
                )
            out += sorted(mine, key=lambda g: g.idx)
        return out

    def run_of(self, game: ClueGameRow) -> ClueRun:
        """The run a game of `games()` belongs to."""
        for run in self._runs:
            if run.run_id == game.run_id:
                return run
        raise KeyError(game.id)

    def turns(self, game_id: int) -> list[ClueTurnRow]:
        """The game's turns in order (one row per turn, a shown card on its suggestion's row)."""
        if game_id not in self._turns:
            rows = [
                _turn_row(m, json.loads(m.annotation)) for m in self._store.moves(game_id) if m.annotation
            ]
            self._turns = {game_id: rows}
        return self._turns[game_id]

    def knowledge(self, game_id: int) -> list[KnowledgeRow]:
        """Every seat's standing against the oracle after each turn, by turn and seat."""
        out = []
        for m in self._store.moves(game_id):
            note = json.loads(m.annotation) if m.annotation else {}
            for seat, (known, solved, ready) in enumerate(note.get("knowledge", [])):
                out.append(KnowledgeRow(note["turn"], seat, known, bool(solved), bool(ready)))
        return out
