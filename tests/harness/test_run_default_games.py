"""`plylab run` plays the paper's 100 games per matchup by default (003 l.60), as `paper run` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plylab.harness.plan import GAMES_PER_MATCHUP, PlanFile
from tests.support.cli import run_args


@pytest.mark.slow
def test_run_defaults_to_the_papers_100_games(cli, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    res = cli(*run_args("nim", store=store))
    assert res.code == 0, res.err
    [row] = json.loads(cli("report", "--store", str(store), "--format", "json").out)["matchups"]
    assert row["games"] == 100 == GAMES_PER_MATCHUP
    assert row["run"].endswith(".n100")


def test_a_plan_file_without_a_count_plays_100_games() -> None:
    plan = PlanFile.model_validate({"games": "nim", "players": "random", "opponents": "random"})
    assert plan.games_per_matchup == 100
