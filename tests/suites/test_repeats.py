"""`suite run --repeats N`: each position asked N times of each player, each answer with its own seed,
stored under its repeat number; the first answer is the one a run without repeats gives; a store from
before repeats is rebuilt with every answer kept as repeat 0."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from plylab.cli import main
from plylab.harness.store import Store
from plylab.suites.study import SuiteStore


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _rows(store: Path) -> list[tuple[int, str, int, int | None]]:
    with sqlite3.connect(store) as conn:
        rows = conn.execute(
            "SELECT position, player, repeat, action FROM suite_answers ORDER BY player, position, repeat"
        )
        return [tuple(r) for r in rows]


@pytest.mark.slow
def test_repeats_answer_each_position_n_times_with_their_own_seeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        _cli(capsys, "suite", "build", "k", "--game", "kuhn_poker", "--positions", "7", "--seed", "1")[0] == 0
    )
    players = ["--player", "optimal:epsilon=0.5", "--player", "optimal"]
    run = ["suite", "run", "k", *players, "-q"]
    code, out, err = _cli(capsys, *run, "--repeats", "4", "--store", "r.sqlite")
    assert code == 0 and "56/56" in out, err
    rows = _rows(tmp_path / "r.sqlite")
    assert len(rows) == 56
    assert {(p, r) for _, p, r, _ in rows} == {
        (p, r) for p in ("optimal", "optimal:epsilon=0.5") for r in range(4)
    }
    sampled: dict[int, set[int | None]] = {}
    for pos, player, _, action in rows:
        if player == "optimal:epsilon=0.5":
            sampled.setdefault(pos, set()).add(action)
    assert any(len(actions) > 1 for actions in sampled.values())  # the repeats are not one answer copied

    # the first answer of each position is the one a run without --repeats gives
    assert _cli(capsys, *run, "--store", "once.sqlite")[0] == 0
    once = _rows(tmp_path / "once.sqlite")
    assert [r for r in rows if r[2] == 0] == once

    code, out, _ = _cli(capsys, *run, "--repeats", "4", "--store", "r.sqlite")  # resumed: nothing missing
    assert code == 0 and "0 played now, 56 already there" in out

    code, out, _ = _cli(capsys, "suite", "report", "--store", "r.sqlite", "--format", "json")
    data = json.loads(out)
    by = {r["player"]: r for r in data["players"]["players"]}
    assert (by["optimal"]["n"], by["optimal"]["positions"]) == (28, 7)
    (pair,) = data["pairs"]["pairs"]
    assert pair["rate"]["n"] == 28  # paired answer by answer: position and repeat
    code, out, _ = _cli(capsys, "suite", "report", "--store", "r.sqlite", "--format", "markdown")
    assert "suite run --repeats" in out  # the note saying what n counts


@pytest.mark.parametrize("value", ["0", "-2"])
def test_repeats_below_one_are_refused_in_one_line(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        _cli(capsys, "suite", "build", "t", "--game", "tic_tac_toe", "--positions", "2", "--seed", "1")[0]
        == 0
    )
    code, _, err = _cli(capsys, "suite", "run", "t", "--player", "random", "--repeats", value, "-q")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--repeats" in err and value in err


OLD = """CREATE TABLE suite_answers (
    run_id INTEGER NOT NULL, position INTEGER NOT NULL, player TEXT NOT NULL, position_id TEXT NOT NULL,
    action INTEGER, label TEXT, optimal INTEGER NOT NULL, loss REAL NOT NULL, span REAL NOT NULL,
    chance REAL NOT NULL, features TEXT NOT NULL, failure TEXT, prompt TEXT, reply TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
    calls INTEGER NOT NULL DEFAULT 0, cache_hits INTEGER NOT NULL DEFAULT 0, cost REAL, elapsed REAL,
    deduction TEXT, PRIMARY KEY (run_id, position, player))"""


def test_a_store_from_before_repeats_keeps_its_answers_as_the_first(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    Store(path).close()  # the games' tables, then the answers' table as it was
    with sqlite3.connect(path) as conn:
        conn.execute(OLD)
        conn.execute(
            "INSERT INTO suite_answers (run_id, position, player, position_id, action, optimal, loss, span,"
            " chance, features) VALUES (1, 3, 'random', 'p3', 4, 1, 0.0, 1.0, 0.5, '{}')"
        )
    store = SuiteStore(path)
    try:
        assert store.answered(1) == {(3, "random", 0)}
        (answer,) = store.answers(1)
        assert (answer.position, answer.action, answer.repeat, answer.memory) == (3, 4, 0, None)
        assert store.save_answer(1, replace(answer, repeat=1))  # a second answer is no duplicate now
        assert store.answered(1) == {(3, "random", 0), (3, "random", 1)}
    finally:
        store.close()
