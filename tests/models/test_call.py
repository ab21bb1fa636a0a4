"""One model call (`plylab.models.call`): the attempt it returns, the per-call seed rule, and stores
written before the rule, which resume from their response cache (issue 21 point 2)."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from plylab.models import GenerateConfig, ResponseCache
from plylab.models.call import SEEDING, call, call_seed
from tests.support.clue import clue_turns
from tests.support.fake_openai_server import Behaviour

HI = [{"role": "user", "content": "hi"}]

# Written by plylab at b781426, before the shared rule, with the local model:
#   plylab run --game tic_tac_toe --player llm:model=local,max_tokens=8 --opponent random --games 2
#     --seed 5 --store S --run legacy
#   plylab clue run -p clue-llm:model=local,max_tokens=16 -p clue-random -p clue-random --games 1
#     --seed 5 --turn-limit 6 --store S
#   plylab run --game tic_tac_toe --player reaper:model=local,max_tokens=16,iterations=1,reflection=off,
#     rules=off,descriptor=off --opponent random --games 1 --seed 5 --store S --run legacy-reaper
# Its Clue seat asked both its turns with one seed; REAPER's seed was derive_seed(seed, key).
LEGACY = Path(__file__).parents[1] / "data" / "stores" / "legacy_seeds.sqlite"
LLM = "llm:model=local,max_tokens=8"
REAPER = "reaper:model=local,max_tokens=16,iterations=1,reflection=off,rules=off,descriptor=off"
CLUE = ["-p", "clue-llm:model=local,max_tokens=16", "-p", "clue-random", "-p", "clue-random"]


def resume_commands(store: Path) -> list[list[str]]:
    run = ["run", "--game", "tic_tac_toe", "--opponent", "random", "--seed", "5", "--store", str(store), "-q"]
    return [
        [*run, "--player", LLM, "--games", "2", "--run", "legacy"],
        [*run, "--player", REAPER, "--games", "1", "--run", "legacy-reaper"],
        ["clue", "run", *CLUE, "--seed", "5", "--turn-limit", "6", "--store", str(store), "-q"],
    ]


def test_the_seed_rule_is_one_seed_per_game_seat_ply_and_call() -> None:
    seeds = {(s, p, c): call_seed(s, p, c) for s in (7, 8) for p in range(6) for c in range(3)}
    assert len(set(seeds.values())) == len(seeds)  # seat (its seed), ply and call each change it
    assert all(call_seed(*k) == v for k, v in seeds.items())  # the same call, the same seed
    assert all(0 <= v < 2**31 for v in seeds.values())  # every provider accepts it


def test_a_call_returns_its_attempt_with_the_failure_and_seed(server, remote) -> None:
    server.queue(Behaviour(status=400))
    config = GenerateConfig(max_retries=0)
    failed = asyncio.run(call(remote, HI, schema=None, config=config, cache=None, key="k/0/0", seed=11))
    assert failed.failure == "provider_error" and "400" in (failed.error or "") and failed.seed == 11
    assert failed.prompt == "hi" and failed.reply is None
    server.queue(Behaviour(text="ok", usage={"prompt_tokens": 5, "completion_tokens": 2}))
    cache = ResponseCache(sqlite3.connect(":memory:"))
    ok = asyncio.run(call(remote, HI, schema=None, config=config, cache=cache, key="k/0/1", seed=12))
    again = asyncio.run(call(remote, HI, schema=None, config=config, cache=cache, key="k/0/1", seed=12))
    assert (ok.reply, ok.input_tokens, ok.output_tokens, ok.cached, ok.failure) == ("ok", 5, 2, False, None)
    assert again.reply == "ok" and again.cached and len(server.requests) == 2  # the third came from the cache
    assert [r["seed"] for r in server.requests] == [11, 12]


@pytest.mark.slow
def test_new_runs_record_the_rule_and_seed_every_call(cli, server, tmp_path, monkeypatch) -> None:
    """Clue's seat used one seed for every turn of a game; now each call has its own, the same on a rerun."""
    monkeypatch.setenv("FAKE_BASE_URL", server.url)
    seat = "clue-llm:model=openai-api/fake/m"

    def seeds(store: Path) -> list[int]:
        server.reset()
        args = ["clue", "run", "-p", seat, "-p", seat, "-p", "clue-random", "--turn-limit", "9"]
        assert cli(*args, "--seed", "2", "--store", str(store), "-q").code == 0
        game = ["run", "--game", "tic_tac_toe", "--player", "llm:model=openai-api/fake/m", "--opponent"]
        assert (
            cli(*game, "llm:model=openai-api/fake/m", "--store", str(store), "--games", "2", "-q").code == 0
        )
        return [r["seed"] for r in server.requests]

    first = seeds(tmp_path / "a.sqlite")
    assert len(first) >= 10 and len(set(first)) == len(first)  # per game, seat, ply and call
    assert seeds(tmp_path / "b.sqlite") == first
    plan = sqlite3.connect(tmp_path / "a.sqlite").execute("SELECT plan FROM runs").fetchone()[0]
    assert json.loads(plan)["seeding"] == SEEDING


@pytest.mark.model
def test_a_store_written_before_the_rule_resumes_with_no_new_call(cli, tmp_path) -> None:
    store = tmp_path / "legacy.sqlite"
    shutil.copy(LEGACY, store)
    with sqlite3.connect(store) as conn:  # the games go, the replies stay: a resume must replay them
        conn.execute("PRAGMA foreign_keys=ON")
        for table in ("moves", "games", "clue_knowledge", "clue_turns", "clue_games"):
            conn.execute(f"DELETE FROM {table}")
        asked = conn.execute("SELECT count(*) FROM responses").fetchone()[0]
    for args in resume_commands(store):
        res = cli(*args)
        assert res.code == 0, res.err
    conn = sqlite3.connect(store)
    assert conn.execute("SELECT count(*) FROM responses").fetchone()[0] == asked  # no new model call
    two_player = "SELECT g.id FROM games g JOIN runs r ON r.id = g.run_id WHERE r.kind != 'clue'"
    assert len(conn.execute(two_player).fetchall()) == 3
    attempts = [
        a
        for (text,) in conn.execute(f"SELECT attempts FROM moves WHERE game_id IN ({two_player})")
        for a in json.loads(text or "[]")
    ]
    turns = [t["cached"] for t in clue_turns(store) if t["prompt"] is not None]  # the Clue game, replayed
    assert len(attempts) == 3 and all(a.get("cached") for a in attempts)
    assert len(turns) == 2 and all(turns)


@pytest.mark.slow
def test_reaper_components_seed_by_the_rule_and_old_runs_keep_theirs(server, remote) -> None:
    from plylab.players.reaper.calls import Caller
    from plylab.seeds import derive_seed

    config = GenerateConfig(max_retries=0)
    for seeding in (SEEDING, 1):
        caller = Caller({"planner": remote}, config, None, 9, seeding)
        for key in ("job/0/0/planner/0", "job/0/0/planner/1", "job/2/0/planner/0"):
            server.queue(Behaviour(text="plan"))
            assert asyncio.run(caller.ask("planner", HI, None, key)) == "plan"
    keys = ("job/0/0/planner/0", "job/0/0/planner/1", "job/2/0/planner/0")
    expected = [call_seed(9, k) for k in keys] + [derive_seed(9, k) for k in keys]  # REAPER's seed before
    assert [r["seed"] for r in server.requests] == expected and len(set(expected)) == 6
    assert [a.seed for a in caller.take()] == expected[3:]


def test_a_run_records_its_seed_rule_and_one_stored_before_reopens_without_one(tmp_path) -> None:
    from plylab.harness.store import Store

    store = Store(tmp_path / "s.sqlite")
    plan = {"seed": 1, "games": 2, "matchups": []}
    new = store.open_run("new", 1, plan)
    old_writer = sqlite3.connect(tmp_path / "s.sqlite", isolation_level=None)
    old_writer.execute(  # as plylab stored a run before the rule: the plan alone
        "INSERT INTO runs(name, seed, plan, created, updated) VALUES ('old', 1, ?, 0, 0)",
        (json.dumps(plan, sort_keys=True),),
    )
    old_writer.close()
    old = store.open_run("old", 1, plan)  # resumes: not "a different plan"
    assert (store.seeding(new), store.seeding(old)) == (SEEDING, 1)
    assert store.open_run("new", 1, plan) == new
    store.close()


def test_an_attempt_record_names_every_field_of_an_attempt() -> None:
    """`Attempt.to_dict` is typed as `AttemptRecord`: the two must name the same fields."""
    from dataclasses import fields

    from plylab.models.call import Attempt, AttemptRecord

    assert set(AttemptRecord.__annotations__) == {f.name for f in fields(Attempt)}
    full = Attempt(prompt="p", reply="r", input_tokens=3, cached=True, seed=7).to_dict()
    assert full == {"prompt": "p", "reply": "r", "input_tokens": 3, "cached": True, "seed": 7}
