"""`plylab export DIR --format inspect`: read back with inspect's own API, one sample per game,
the same outcome and optimality as the store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from plylab.cli import main


@pytest.fixture(scope="module")
def logs(report_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("inspect") / "logs"
    assert main(["export", str(out), "--format", "inspect", "--store", str(report_store)]) == 0
    return out


def test_every_game_is_one_sample_with_the_stores_outcome_and_optimality(
    logs: Path, report_store: Path
) -> None:
    from inspect_ai.log import read_eval_log

    conn = sqlite3.connect(report_store)
    conn.row_factory = sqlite3.Row
    games = {
        f"game-{g['id']}": g
        for g in conn.execute(
            """SELECT g.id, g.outcome, g.seed, r.name AS run,
                      TOTAL(m.informative = 1 AND m.action IS NOT NULL) AS scored,
                      TOTAL(CASE WHEN m.informative = 1 AND m.action IS NOT NULL THEN m.optimal END) AS optimal
               FROM games g JOIN runs r ON r.id = g.run_id
               LEFT JOIN moves m ON m.game_id = g.id AND m.seat = g.player_seat GROUP BY g.id"""
        )
    }
    seen = {}
    paths = sorted(logs.rglob("*.eval"))
    assert paths
    for path in paths:
        log = read_eval_log(str(path))
        assert log.status == "success" and log.eval.metadata["plylab_run"]
        for sample in log.samples:
            g = games[str(sample.id)]
            assert sample.id not in seen, "one sample per game"
            seen[sample.id] = log
            assert sample.scores["outcome"].value == g["outcome"]
            meta = sample.scores["optimality"].metadata
            assert (meta["optimal"], meta["scored"]) == (g["optimal"], g["scored"])
            assert sample.metadata["seed"] == g["seed"] and log.eval.metadata["plylab_run"] == g["run"]
    assert set(seen) == set(games), "every game of every run is exported"
    # the model's calls: the prompt it saw, then its reasoning and its reply, with usage
    llm = next(log for log in seen.values() if log.eval.metadata["plylab_run"] == "ttt-llm")
    sample = llm.samples[0]
    roles = [m.role for m in sample.messages]
    assert roles[:2] == ["user", "assistant"] and roles.count("user") == roles.count("assistant")
    first = sample.messages[1]
    assert "the first move listed" in (first.content[0].reasoning), "the trace travels with the reply"
    assert "action" in first.text
    assert sample.model_usage and next(iter(sample.model_usage.values())).output_tokens > 0
    assert llm.eval.model == "openai-api/fake/m"


def test_export_inspect_to_a_file_is_one_clear_error(report_store: Path, tmp_path: Path, cli) -> None:
    target = tmp_path / "x.eval"
    target.write_text("")
    result = cli("export", str(target), "--format", "inspect", "--store", str(report_store))
    assert result.code == 2 and "give a directory" in result.err


def test_export_inspect_of_an_unknown_run_is_one_clear_error(report_store: Path, tmp_path: Path, cli) -> None:
    result = cli(
        "export", str(tmp_path / "logs"), "--format", "inspect", "--store", str(report_store), "--run", "nope"
    )
    assert result.code == 2 and "nope" in result.err and "Traceback" not in result.err
    assert not (tmp_path / "logs").exists()
