"""Clue games stored before Clue ran on the session: read in place, never written.

plylab up to this change kept Clue in tables of its own (`clue_runs`, `clue_games`, `clue_turns`,
`clue_knowledge`). Such a store still reports (its rows are read here, as the typed rows `report_rows.py`
gives every Clue game) and resumes: its saved games count as played, and the games it lacks are
played into the one schema under the same run key, with the same seeds and cache keys.

Their SQL is the store's (harness/oldclue.py, through `Store.old_clue_*`); this module turns its rows
into Clue's. Reports read them through `records.ClueRecords`; the study asks its store which legacy
runs and games there are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..harness.oldclue import OldClueGame, OldClueKnowledge, OldClueRun, OldClueTurn
from ..players.canonical import canonical_spec
from .report_rows import ClueGameRow, ClueTurnRow, KnowledgeRow, belief, cards, claims, flag, ints


@dataclass(frozen=True, slots=True)
class LegacyRun:
    id: int
    key: str
    condition: str
    seed: int
    turn_limit: int
    specs: list[str]


def run(r: OldClueRun) -> LegacyRun:
    return LegacyRun(r.id, r.key, r.condition, r.seed, r.turn_limit, json.loads(r.specs))


def game(g: OldClueGame, condition: str) -> ClueGameRow:
    """An old game, its id negated (apart from the one schema's) and its seats canonical."""
    return ClueGameRow(
        -g.id, g.run_id, g.idx, g.seed, [canonical_spec(s) for s in json.loads(g.seats)], ints(g.envelope),
        [ints(h) for h in json.loads(g.hands)], g.winner, g.end_reason, g.turns, g.rounds,
        g.solution_suggested_turn, g.started, g.finished, condition,
    )  # fmt: skip


def turn(t: OldClueTurn) -> ClueTurnRow:
    return ClueTurnRow(
        t.turn, t.round, t.seat, t.action, cards(t.cards), t.disprover, t.shown, flag(t.correct),
        belief(t.envelope_belief), claims(t.claims), flag(t.ready), t.failure_kind, t.error, t.prompt,
        t.reply, t.reasoning, t.input_tokens, t.output_tokens, t.reasoning_tokens, t.cost, t.latency,
        flag(t.cached),
    )  # fmt: skip


def knowledge(k: OldClueKnowledge) -> KnowledgeRow:
    return KnowledgeRow(k.turn, k.seat, k.oracle_known, bool(k.oracle_solved), bool(k.matrix_ready))
