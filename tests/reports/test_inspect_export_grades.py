"""`plylab export --format inspect` of games graded by an equilibrium or an engine: each sample carries
the `ground_truth` score `inspect eval plylab/game` gives (analysis.inspect_scores), its figures those of
plylab's own report, and a target that says what grades it, never "unknown"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.engines import needs_stockfish


def _export(cli: Any, store: Path, out: Path) -> list[Any]:
    from inspect_ai.log import read_eval_log

    assert cli("export", str(out), "--format", "inspect", "--store", str(store)).code == 0
    return [read_eval_log(str(p)) for p in sorted(out.rglob("*.eval"))]


def test_an_exported_kuhn_run_shows_the_equilibriums_grades(cli: Any, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    assert cli("run", "--game", "kuhn_poker", "--player", "random", "--opponent", "random",
               "--games", "8", "--store", str(store), "--quiet").code == 0  # fmt: skip
    (log,) = _export(cli, store, tmp_path / "logs")
    report = json.loads(cli("report", "--store", str(store), "--format", "json").out)
    (row,) = report["matchups"]
    eq = row["equilibrium"]
    scores = [s.scores["ground_truth"] for s in log.samples]
    assert all(s.metadata["scale"] == "equilibrium" and s.metadata["source"] == eq["source"] for s in scores)
    assert all(s.target != "unknown" for s in log.samples)
    assert sum(s.metadata["decisions"] for s in scores) == eq["decisions"]
    assert sum(s.metadata["informative"] for s in scores) == eq["informative"]
    pooled = sum(s.metadata["loss_sum"] for s in scores) / eq["informative"]
    assert pooled == pytest.approx(eq["loss"]["mean"])  # the loss plylab's equilibrium table prints
    results = {r.name: r for r in log.results.scores}
    assert {"optimal", "loss", "outcome", "failure"} <= set(results)
    assert "plylab/wilson_high" in results["optimal"].metrics and "stderr" in results["loss"].metrics


@pytest.mark.slow  # a chess game graded by Stockfish: seconds on two cores
@needs_stockfish
def test_an_exported_chess_run_shows_acpl_and_accuracy(cli: Any, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    assert cli("run", "--game", "chess", "--player", "random", "--opponent", "stockfish:nodes=300",
               "--games", "1", "--score", "nodes=1000", "--store", str(store), "--quiet").code == 0  # fmt: skip
    (log,) = _export(cli, store, tmp_path / "logs")
    (chess,) = json.loads(cli("report", "--store", str(store), "--format", "json").out)["chess"]
    (sample,) = log.samples
    score = sample.scores["ground_truth"]
    assert score.metadata["scale"] == "engine" and sample.target != "unknown"
    assert score.value["acpl"] == pytest.approx(chess["acpl"]["mean"])
    assert score.value["accuracy"] == pytest.approx(chess["accuracy"]["mean"])
