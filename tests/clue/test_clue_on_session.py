"""Clue on the one session, driver and store: same seeds, same games and metrics as before.

`tests/data/stores/clue_v1.resumed.*` are the report and games of these runs as the code before Clue ran on
the session played them:
  plylab clue run -p clue-oracle -p clue-matrix -p clue-random -p clue-random --games 4 --seed 1
  plylab clue run -p clue-matrix -p clue-random:accuse=0.05 -p clue-oracle --games 2 --seed 7 --turn-limit 60
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from plylab.harness.store import json_text

DATA = Path(__file__).resolve().parents[1] / "data" / "stores"
FIRST = ["-p", "clue-oracle", "-p", "clue-matrix", "-p", "clue-random", "-p", "clue-random", "--seed", "1"]
SECOND = ["-p", "clue-matrix", "-p", "clue-random:accuse=0.05", "-p", "clue-oracle", "--seed", "7"]
SECOND += ["--turn-limit", "60", "--games", "2"]
TURN = ("turn", "round", "seat", "action", "cards", "disprover", "shown", "correct", "envelope_belief")
TURN += ("claims", "ready")
GAME = ("idx", "seed", "winner", "end_reason", "turns", "rounds", "solution_suggested_turn")


def _column(value: Any) -> Any:
    """A typed row's field as the old table's column held it."""
    if isinstance(value, bool):
        return int(value)
    return json_text(value) if isinstance(value, list) else value


def games_of(path: Path) -> list[dict[str, Any]]:
    """Every Clue game of a store with its turns and knowledge, as the fixture's games file has them."""
    from plylab.clue.records import ClueRecords

    records = ClueRecords(path)
    try:
        out = []
        for g in records.games():
            # as the fixture holds them: JSON columns as their text, truth values as 0 / 1
            turns = [[_column(getattr(t, k)) for k in TURN] for t in records.turns(g.id)]
            know = [
                [
                    _column(getattr(k, x))
                    for x in ("turn", "seat", "oracle_known", "oracle_solved", "matrix_ready")
                ]
                for k in records.knowledge(g.id)
            ]
            out.append(
                {"run": records.run_of(g).key, **{k: getattr(g, k) for k in GAME}}
                | {"seats": g.seats, "envelope": g.envelope, "hands": g.hands}
                | {"turn_rows": turns, "knowledge": know}
            )
        return out
    finally:
        records.close()


def report(cli: Any, store: Path) -> dict[str, Any]:
    res = cli("clue", "report", "--store", str(store), "--format", "json")
    assert res.code == 0, res.err
    data: dict[str, Any] = json.loads(res.out)
    data.pop("store")
    return data


def expected(name: str) -> Any:
    return json.loads((DATA / name).read_text())


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_same_seeds_give_the_same_games_and_metrics_as_before(tmp_path: Path, cli: Any) -> None:
    store = tmp_path / "new.sqlite"
    for args in (FIRST + ["--games", "4"], SECOND):
        assert cli("clue", "run", *args, "--store", str(store), "-q").code == 0
    assert games_of(store) == expected("clue_v1.resumed.games.json")
    assert report(cli, store) == expected("clue_v1.resumed.report.json")
    with sqlite3.connect(store) as conn:  # one schema: no table of Clue's own
        tables = {t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        kinds = {k for (k,) in conn.execute("SELECT DISTINCT kind FROM runs")}
        annotated = conn.execute("SELECT COUNT(*) FROM moves WHERE annotation IS NOT NULL").fetchone()[0]
    assert not {t for t in tables if t.startswith("clue_")} and kinds == {"clue"}
    assert annotated == sum(g["turns"] for g in expected("clue_v1.resumed.games.json"))


def test_a_turn_is_one_annotated_move_and_a_shown_card_its_own(tmp_path: Path) -> None:
    """The session plays Clue's engine: a suggestion someone can disprove is two moves (the suggester's,
    annotated with the turn, and the disprover's shown card); the mover's view is its own."""
    import asyncio

    from plylab.clue.study import ClueStudy, RunPlan
    from plylab.harness.session import play_game

    study = ClueStudy(RunPlan(["clue-oracle", "clue-random", "clue-random"], 1, seed=5, turn_limit=30))
    [job] = study.jobs(set())
    rec = asyncio.run(play_game(job))
    notes = [json.loads(m.annotation) for m in rec.moves if m.annotation is not None]
    assert rec.extra is not None and len(notes) == rec.extra["turns"] <= 30
    shown = [m for m in rec.moves if m.annotation is None]
    assert len(shown) == sum(1 for n in notes if n.get("disprover") is not None)
    assert all(m.action is not None and m.action < 21 for m in shown)  # show actions are card indexes
    assert all(len(n["knowledge"]) == 3 for n in notes)
    assert all(m.observation is None for m in rec.moves)  # stored only for what a model or a person read
    from plylab.clue.cards import CLASSIC
    from plylab.games import get_game

    game = get_game(job.matchup.game)
    first = rec.moves[0]
    state = game.engine.deserialize_state(first.state)  # the stored state: the actions, deal included
    assert state.history() == [int(a) for a in first.state.split()] and not state.is_chance_node()
    view = game.formulation("text").render_state(state)  # what the mover reads: its own hand only
    mine = next(line for line in view.splitlines() if line.startswith("Your cards:"))
    hand = rec.extra["hands"][first.seat]
    assert sorted(c for c in range(CLASSIC.size) if CLASSIC.name(c) in mine) == hand
    form = game.formulation("text")
    for seat, theirs in enumerate(rec.extra["hands"]):  # any seat's view is its own, whoever moves
        line = next(x for x in form.render_view(state, seat).splitlines() if x.startswith("Your cards:"))
        assert sorted(c for c in range(CLASSIC.size) if CLASSIC.name(c) in line) == theirs
    show = next(m for m in rec.moves if m.annotation is None)  # a shown card, as each seat learns of it
    at = game.engine.deserialize_state(show.state)
    suggester, _, disprover = at.pending
    for seat in range(len(hands := rec.extra["hands"])):
        label = form.seen_label(at, show.action, seat)
        assert (label == show.action_label) == (seat in (suggester, disprover)), (seat, label)
    assert all(CLASSIC.name(c) in (form.render_whole(at) or "") for h in hands for c in h)


def test_a_game_is_stored_once(tmp_path: Path) -> None:
    import asyncio

    from plylab.clue.study import ClueStudy, RunPlan
    from plylab.harness.session import play_game
    from plylab.harness.store import Store

    study = ClueStudy(RunPlan(["clue-random"] * 3, 1, seed=5, turn_limit=30))
    [job] = study.jobs(set())
    rec = asyncio.run(play_game(job))
    store = Store(tmp_path / "one.sqlite")
    run = store.open_run(study.key, 5, {"condition": "custom"}, kind="clue")
    assert store.save_game(run, rec) is True
    assert store.save_game(run, rec) is False
    [game] = store.games([run])
    annotated = [json.loads(m.annotation) for m in store.moves(game.id) if m.annotation]
    assert len(annotated) == 30 and sum(len(n["knowledge"]) for n in annotated) == 90
    store.close()


def test_a_run_kept_in_the_old_clue_tables_resumes_under_its_own_key(tmp_path: Path) -> None:
    """A store written before Clue ran on the session (b781426, see tests/models/test_call.py) holds its
    Clue run in `clue_runs` alone; its replies are cached under that run's key and seeds, so a resume
    takes them, not today's, or it asks the model again."""
    import shutil

    from plylab.clue.study import ClueStudy, RunPlan

    store = tmp_path / "legacy.sqlite"
    shutil.copy(DATA / "legacy_seeds.sqlite", store)
    seats = ["clue-llm:model=local,max_tokens=16", "clue-random", "clue-random"]
    study = ClueStudy(RunPlan(seats, 1, seed=5, turn_limit=6))
    study.open_store(store).close()
    assert (study.key, study.legacy, study.seeding) == ("custom/seed5/8bf12d215347", False, 1)
