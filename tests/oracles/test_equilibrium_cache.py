"""A damaged equilibrium cache is rebuilt, never believed; a non-file at its path is refused (issue 37, 6).

Each damaged file is valid JSON naming the right game and format, the kind the old loader took:
empty information sets and unknown action numbers (a KeyError mid-run), a NaN probability (played
on), an empty value (`solve` printed "game value:" and nothing). A FIFO at the path blocked `solve`
and `run` for ever: the CLI cases run in a child with a time-out.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyspiel
import pytest

from plylab.oracles.equilibrium import EquilibriumOracle, cache_path

Data = dict[str, Any]


@pytest.fixture(scope="module")
def good() -> Data:
    """The whole equilibrium of Kuhn poker as its cache file holds it."""
    game = pyspiel.load_game("kuhn_poker")
    return EquilibriumOracle.build(game).to_json("kuhn_poker")


def _first(data: Data) -> Data:
    entry: Data = data["infosets"][sorted(data["infosets"])[0]]
    return entry


def _unknown_action(data: Data) -> None:
    entry = _first(data)
    for field in ("policy", "values"):
        entry[field]["7"] = entry[field].pop("0")


def _nan_policy(data: Data) -> None:
    policy = _first(data)["policy"]
    policy[sorted(policy)[0]] = math.nan


def _not_one(data: Data) -> None:
    policy = _first(data)["policy"]
    for a in policy:
        policy[a] = 0.25


def _one_missing(data: Data) -> None:
    del data["infosets"][sorted(data["infosets"])[0]]


def _infinite_value(data: Data) -> None:
    values = _first(data)["values"]
    values[sorted(values)[0]] = math.inf


DAMAGES: dict[str, Callable[[Data], None]] = {
    "empty infosets": lambda d: d.update(infosets={}),
    "unknown action ids": _unknown_action,
    "NaN probability": _nan_policy,
    "probabilities not summing to one": _not_one,
    "an information set missing": _one_missing,
    "an infinite action value": _infinite_value,
    "empty value": lambda d: d.update(value=[]),
    "NaN value": lambda d: d.update(value=[math.nan, math.nan]),
    "no exploitability": lambda d: d.update(exploitability=None),
}


def _damaged(good: Data, how: str) -> str:
    data = json.loads(json.dumps(good))
    DAMAGES[how](data)
    return json.dumps(data)  # NaN and Infinity written as Python's json writes (and reads) them


def _legal(game: pyspiel.Game) -> dict[str, set[int]]:
    """Every information set of the game and its legal actions, by a walk of the whole tree."""
    out: dict[str, set[int]] = {}
    todo = [game.new_initial_state()]
    while todo:
        state = todo.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            out[state.information_state_string()] = set(state.legal_actions())
        todo += [state.child(a) for a in state.legal_actions()]
    return out


def _is_whole(oracle: EquilibriumOracle, game: pyspiel.Game) -> None:
    legal = _legal(game)
    assert set(oracle.infosets) == set(legal)
    for key, entry in oracle.infosets.items():
        assert set(entry.policy) == legal[key] == set(entry.values)
        assert all(math.isfinite(p) for p in entry.policy.values())
        assert math.fsum(entry.policy.values()) == pytest.approx(1.0)
        assert all(math.isfinite(v) for v in entry.values.values())
    assert len(oracle.value) == 2 and all(math.isfinite(v) for v in oracle.value)
    assert oracle.value[0] == pytest.approx(-1 / 18, abs=1e-3)


# Each damage rebuilds the table through a subprocess; two in the fast lane, every one in `make test`.
FAST_DAMAGES = {"empty infosets", "NaN probability"}


@pytest.mark.parametrize(
    "how", [pytest.param(h, marks=() if h in FAST_DAMAGES else pytest.mark.slow) for h in DAMAGES]
)
def test_a_damaged_cache_is_rebuilt_and_said_so_in_one_line(
    good: Data, how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PLYLAB_CACHE", str(tmp_path))
    path = cache_path("kuhn_poker")
    path.write_text(_damaged(good, how))
    game = pyspiel.load_game("kuhn_poker")
    oracle = EquilibriumOracle.load_or_build(game, "kuhn_poker")
    _is_whole(oracle, game)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"plylab: cache file '{path}' is damaged ("), err
    assert err[0].endswith("; rebuilding it")
    again = EquilibriumOracle.load_or_build(game, "kuhn_poker")  # the file on disk is whole again
    assert capsys.readouterr().err == ""
    assert again.iterations == oracle.iterations


def _plylab(tmp_path: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plylab", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
        env={**os.environ, "PLYLAB_CACHE": str(tmp_path / "cache")},
    )


def _at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PLYLAB_CACHE", str(tmp_path / "cache"))
    return cache_path("kuhn_poker")


@pytest.mark.slow
def test_solve_with_an_empty_value_in_the_cache_prints_the_value(
    good: Data, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _at(tmp_path, monkeypatch).write_text(_damaged(good, "empty value"))
    done = _plylab(tmp_path, "solve", "--game", "kuhn_poker")
    assert done.returncode == 0, done.stderr
    assert "game value: Player 1 (seat 0) -0.05" in done.stdout
    assert len(done.stderr.strip().splitlines()) == 1 and "rebuilding it" in done.stderr


@pytest.mark.slow
def test_a_run_with_empty_infosets_in_the_cache_grades_every_move(
    good: Data, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _at(tmp_path, monkeypatch).write_text(_damaged(good, "empty infosets"))
    store = tmp_path / "s.db"
    done = _plylab(
        tmp_path, "run", "--game", "kuhn_poker", "--player", "equilibrium", "--opponent", "random",
        "--games", "2", "--store", str(store), "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert [line for line in done.stderr.splitlines() if "rebuilding it" in line]


@pytest.mark.parametrize("command", ["solve", pytest.param("run", marks=pytest.mark.slow)])
def test_a_fifo_at_the_cache_path_is_refused_in_one_line(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _at(tmp_path, monkeypatch)
    os.mkfifo(path)
    args = ["solve", "--game", "kuhn_poker"]
    if command == "run":
        args = ["run", "--game", "kuhn_poker", "--player", "equilibrium", "--opponent", "random",
                "--games", "1", "--store", str(tmp_path / "s.db"), "--quiet"]  # fmt: skip
    done = _plylab(tmp_path, *args, timeout=60)  # the old loader blocked here for ever
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()  # `run` says first what it is about to play
    assert "Traceback" not in done.stderr and [x for x in lines if "error" in x] == lines[-1:], done.stderr
    assert lines[-1] == (
        f"plylab: error: cache file '{path}' is a FIFO, not a regular file: remove it "
        "(or set PLYLAB_CACHE to another folder)"
    )
