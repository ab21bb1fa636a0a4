"""The learning report's diagnostics: D.4.1's retrieval success rate from the agent's per-move
notes, and every run's reflections and rule extractions with their failures counted by kind."""

from __future__ import annotations

import json

import numpy as np

from plylab.analysis.learning import learning_data, learning_report
from plylab.harness.records import GameRecord
from plylab.harness.store import Store
from plylab.players.reaper.memory import CaseMemory, Update
from tests.support import records

AGENT = "reaper:model=m"
IDENT = {
    "name": "reaper",
    "game": "tic_tac_toe",
    "formulation": "standard",
    "opponent": "optimal",
    "agent": AGENT,
    "seed": 0,
    "learn_games": 2,
    "eval_games": 1,
}


def game(key: str, notes: list[dict]) -> GameRecord:
    moves = [
        records.move(
            2 * i,
            seat=0,
            player=AGENT,
            legal=[0, 1],
            action_label="A1",
            elapsed=0.1,
            optimal=True,
            informative=True,
            output_tokens=5,
            calls=1,
            note=note,
        )
        for i, note in enumerate(notes)
    ]
    return records.game(moves, job_key=key, player=AGENT, opponent="optimal")


def test_retrieval_success_and_update_failures_are_reported_per_run(tmp_path):
    path = tmp_path / "s.sqlite"
    store = Store(path)
    folder = tmp_path / "s.memory" / "reaper" / "run0"
    memory = CaseMemory.open(folder / "memory.sqlite", frozen=False, game="tic_tac_toe")
    # Two learning games with no new cases, each logging its updates as the learner does.
    no_cases = np.zeros((0, 384), dtype=np.float32)
    memory.add_game(
        [],
        dedup=True,
        encode=lambda texts: no_cases,
        updates=[Update("reflect"), Update("reflect", failure="truncated"), Update("rules")],
    )
    memory.add_game(
        [],
        dedup=True,
        encode=lambda texts: no_cases,
        updates=[Update("reflect", failure="partial"), Update("rules", failure="unparseable")],
    )
    memory.close()
    for c, notes in enumerate([[{}, {}], [{"recall": True}, {"recall": False}, {"recall": True}, {}]]):
        plan = {
            "learn": IDENT,
            "run": 0,
            "phase": "eval",
            "index": c,
            "games": 1,
            "player": AGENT,
            "memory": f"s.memory/reaper/run0/checkpoint-{c}.sqlite",
        }
        run_id = store.open_run(f"reaper/run0/eval{c}", 0, plan, kind="learn")
        store.save_game(run_id, game(f"g{c}", notes))
    store.close()

    store = Store(path, create=False)
    [exp] = learning_data(store).experiments
    store.close()
    empty, learned = exp.checkpoints
    assert empty.retrieval_success.rate is None  # nothing recurred: missing, not zero
    assert learned.retrieval_success.n == 3 and learned.retrieval_success.rate == 2 / 3
    u = exp.updates.to_json()
    assert u["reflect"] == {"total": 3, "failed": {"truncated": 1, "partial": 1}, "truncated": 1}
    assert u["rules"] == {"total": 2, "failed": {"unparseable": 1}, "truncated": 0}
    assert exp.updates.runs[0].run == 0 and exp.updates.runs[0].reflect.total == 3
    assert exp.updates.runs[0].reflect.truncated == 1 and exp.updates.runs[0].rules.truncated == 0

    text = learning_report(path, None, "markdown")
    assert "retrieval success" in text and "0.667" in text
    assert "3 reflections, failed: partial 1, truncated 1" in text
    assert "2 rule extractions, failed: unparseable 1" in text
    assert "run 0: 3 reflections (partial 1, truncated 1 failed, 1 truncated)" in text
    assert json.loads(learning_report(path, None, "json"))["experiments"][0]["updates"]["rules"]["total"] == 2
