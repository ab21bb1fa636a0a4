"""A store written by the previous release opens, reads and resumes (issue 50, point 4).

`tests/data/stores/previous_release.sqlite` was written by plylab at 0cfcdb7 (main before the house's
fifth step), and `previous_release.{report,clue,suite}.json` are what that code reported from it:
  plylab run --game tic_tac_toe --player random --opponent optimal --games 2 --run play --store S
  plylab clue run -p clue-random -p clue-matrix -p clue-oracle --games 1 --turn-limit 12 --store S
  plylab suite build ttt -g tic_tac_toe -n 4; plylab suite run ttt -p random -p optimal --store S
(the suite is `previous_release.ttt.jsonl`), then `plylab report`, `plylab clue report` and `plylab suite report`, each `--format json`. With the old
Clue tables' reader and the suite table's column migrations gone, the same store reports the same.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "stores"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "previous_release.sqlite"
    shutil.copyfile(DATA / "previous_release.sqlite", path)
    return path


ADDED_SINCE = {"answers"}  # the suite report's count of answers beside its positions (issue 46 point 8)


def _without(data: Any, keys: set[str]) -> Any:
    if isinstance(data, dict):
        return {k: _without(v, keys) for k, v in data.items() if k not in keys}
    if isinstance(data, list):
        return [_without(v, keys) for v in data]
    return data


def reported(cli: Any, *args: str) -> Any:
    """The report as JSON, less what that release could not print: the path it was read from, and the
    fields added since (`ADDED_SINCE`); every figure that release printed must be the same."""
    res = cli(*args, "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    if isinstance(data, dict):
        data.pop("store", None)
    return _without(data, ADDED_SINCE)


def expected(name: str) -> Any:
    data = json.loads((DATA / f"previous_release.{name}.json").read_text())
    if isinstance(data, dict):
        data.pop("store", None)
    return data


def test_a_previous_release_store_reports_as_that_release_did(cli: Any, store: Path) -> None:
    assert reported(cli, "report", "--store", str(store)) == expected("report")
    assert reported(cli, "clue", "report", "--store", str(store)) == expected("clue")
    assert reported(cli, "suite", "report", "--store", str(store)) == expected("suite")


def test_a_previous_release_store_resumes(cli: Any, store: Path) -> None:
    args = ["--game", "tic_tac_toe", "--player", "random", "--opponent", "optimal", "--run", "play"]
    res = cli("run", *args, "--games", "2", "--store", str(store), "-q")
    assert res.code == 0 and "(0 played now, 2 already there)" in res.out, res.out + res.err
    res = cli(
        "clue", "run", "-p", "clue-random", "-p", "clue-matrix", "-p", "clue-oracle", "--games", "1",
        "--turn-limit", "12", "--store", str(store), "-q",
    )  # fmt: skip
    assert res.code == 0 and "(0 played now, 1 already there)" in res.out, res.out + res.err
    res = cli(
        "suite", "run", str(DATA / "previous_release.ttt.jsonl"), "-p", "random", "-p", "optimal",
        "--store", str(store), "-q",
    )  # fmt: skip
    assert res.code == 0 and "(0 played now, 8 already there)" in res.out, res.out + res.err
