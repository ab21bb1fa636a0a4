"""`suite run --repeats N`: each position asked N times of each player, each answer with its own seed,
stored under its repeat number; the first answer is the one a run without repeats gives."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from plylab.cli import main


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
