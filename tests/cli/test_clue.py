"""`plylab clue run | study | report`: the checked interface, resuming, determinism, bad input."""

from __future__ import annotations

import json
import sqlite3

import pytest

CHECKED = ["--player", "clue-oracle", "--player", "clue-matrix"] + ["--player", "clue-random"] * 4


@pytest.fixture(scope="module")
def checked_store(tmp_path_factory):
    from plylab.cli import main

    store = tmp_path_factory.mktemp("clue") / "S.sqlite"
    assert main(["clue", "run", *CHECKED, "--games", "5", "--seed", "1", "--store", str(store), "-q"]) == 0
    return store


@pytest.mark.slow
def test_checked_interface(checked_store, cli):
    res = cli("clue", "report", "--store", str(checked_store), "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    groups = {g["spec"]: g for g in data["groups"]}
    oracle = groups["clue-oracle"]
    assert oracle["accusation_accuracy"] == 1.0 and oracle["accusations"] >= 1
    assert oracle["deductions"]["incorrect"] == 0 and oracle["deductions"]["unsupported"] == 0
    assert oracle["deductions"]["correct"] > 0
    assert groups["clue-matrix"]["deductions"]["incorrect"] == 0  # the matrix is sound
    assert groups["clue-matrix"]["accusation_delay"]["ready"]["players"] == 5
    assert sum(g["wins"] for g in data["groups"]) == data["conditions"]["custom"]["games"] == 5
    assert groups["clue-random"]["player_games"] == 20
    curve = oracle["knowledge_curve"]
    assert curve["ceiling"] == 18
    assert all(
        p["stated"] <= p["oracle"] + 1e-9 for p in curve["rounds"]
    )  # the oracle bot states what it knows
    assert curve["rounds"][0]["stated"] >= 3


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_report_markdown_and_plots(checked_store, cli, tmp_path):
    res = cli("clue", "report", "--store", str(checked_store), "--plot", str(tmp_path / "figs"))
    assert res.code == 0, res.err
    assert "| custom | `clue-oracle` |" in res.out and "Knowledge curves" in res.out
    assert (tmp_path / "figs" / "clue_knowledge.png").stat().st_size > 1000
    assert (tmp_path / "figs" / "clue_delays.png").stat().st_size > 1000


def test_rerun_skips_finished_games_and_extends(checked_store, cli):
    res = cli("clue", "run", *CHECKED, "--games", "5", "--seed", "1", "--store", str(checked_store), "-q")
    assert res.code == 0 and "(0 played now, 5 already there)" in res.out
    with sqlite3.connect(checked_store) as conn:
        sql = "SELECT COUNT(*) FROM games g JOIN runs r ON r.id = g.run_id WHERE r.kind = 'clue'"
        before = conn.execute(sql).fetchone()[0]
    assert before == 5


@pytest.mark.slow
def test_runs_are_deterministic(tmp_path, cli):
    rows = []
    for name in ("a", "b"):
        store = tmp_path / f"{name}.sqlite"
        res = cli(
            "clue",
            "run",
            "-p",
            "clue-matrix",
            "-p",
            "clue-random",
            "-p",
            "clue-oracle",
            "--games",
            "2",
            "--seed",
            "9",
            "--store",
            str(store),
            "-q",
        )
        assert res.code == 0, res.err
        from plylab.clue.records import ClueRecords

        records = ClueRecords(store)
        games = records.games()
        rows.append(
            [(g.seats, g.envelope, g.winner, g.turns) for g in games]
            + [(t.turn, t.seat, t.action, t.cards, t.shown) for g in games for t in records.turns(g.id)]
        )
        records.close()
    assert rows[0] == rows[1]


def test_study_rejects_before_playing(cli, tmp_path):
    res = cli(
        "clue", "study", "--condition", "sideways", "--model", "local", "--store", str(tmp_path / "s.sqlite")
    )
    assert res.code == 2 and "unknown condition 'sideways'" in res.err
    res = cli(
        "clue",
        "study",
        "--condition",
        "mixed",
        "--model",
        "a/b",
        "--model",
        "c/d",
        "--model",
        "e/f",
        "--store",
        str(tmp_path / "s.sqlite"),
    )
    assert res.code == 2 and "1 or 2 models" in res.err


def test_study_specs():
    from plylab.clue.study import study_specs

    mixed = study_specs("mixed", ["openai/gpt-4o-mini", "google/gemini-2.5-flash"])
    assert len(mixed) == 6 and sum("matrix=on" in s for s in mixed) == 2
    assert all(s.count("matrix=on") + s.count("matrix=off") == 1 for s in mixed)
    assert study_specs("baseline", ["local"]) == ["clue-llm:model=local,matrix=off"] * 3


@pytest.mark.parametrize(
    "args,message",
    [
        (["-p", "clue-random", "-p", "clue-random"], "3 to 6 players"),
        (["-p", "clue-random"] * 7, "3 to 6 players"),
        ([], "3 to 6 players"),
        (
            ["-p", "clue-random", "-p", "clue-random", "-p", "clue-wizard"],
            "unknown Clue player 'clue-wizard'",
        ),
        (["-p", "clue-random:accuse=2", "-p", "clue-random", "-p", "clue-random"], "accuse"),
        (["-p", "clue-matrix:depth=3", "-p", "clue-random", "-p", "clue-random"], "unknown option 'depth'"),
        (["-p", "clue-llm", "-p", "clue-random", "-p", "clue-random"], "model"),
        (["-p", "clue-random"] * 3 + ["--games", "0"], "--games"),
        (["-p", "clue-random"] * 3 + ["--turn-limit", "0"], "--turn-limit"),
    ],
)
def test_bad_run_input_is_one_line_exit_2(cli, tmp_path, args, message):
    res = cli("clue", "run", *args, "--store", str(tmp_path / "x.sqlite"), "-q")
    assert res.code == 2
    assert message in res.err and res.err.count("\n") == 1 and "Traceback" not in res.err


def test_bad_store_is_one_line_exit_2(cli, tmp_path):
    (tmp_path / "dir.sqlite").mkdir()
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    three = ["-p", "clue-random"] * 3
    for store in (tmp_path / "dir.sqlite", junk):
        res = cli("clue", "run", *three, "--store", str(store), "-q")
        assert res.code == 2 and res.err.count("\n") == 1, res.err
        res = cli("clue", "report", "--store", str(store))
        assert res.code == 2 and res.err.count("\n") == 1, res.err
    res = cli("clue", "report", "--store", str(tmp_path / "missing.sqlite"))
    assert res.code == 2 and "does not exist" in res.err
    empty = tmp_path / "empty.sqlite"
    sqlite3.connect(empty).close()
    res = cli("clue", "report", "--store", str(empty))
    assert res.code == 2 and "not a plylab store" in res.err
    plain = tmp_path / "plain.sqlite"
    from plylab.harness.store import Store

    Store(plain).close()  # a plylab store with no Clue games in it
    res = cli("clue", "report", "--store", str(plain))
    assert res.code == 2 and "no Clue games" in res.err
    res = cli("clue", "report", "--store", str(plain), "--format", "yaml")
    assert res.code == 2 and "'yaml' is not one of 'json', 'markdown'" in res.err
