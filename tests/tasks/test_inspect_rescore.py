"""`inspect score --scorer plylab/ground_truth LOG`: plylab's scorers and metric are in inspect's registry
once the entry point's module is imported, so inspect re-scores a log of plylab's tasks by name, in a
process that never built a task, and the re-score equals the original; the game's target names its
ground truth."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.tasks.test_inspect_game import ROOT, eval_in_process, played  # also registers the scripted model
from tests.tasks.test_inspect_suite import build, eval_suite

REGISTERED = """
import plylab.tasks  # what inspect's entry point imports
from inspect_ai._util.registry import registry_lookup
print(*(registry_lookup(k, n) is not None for k, n in (
    ("scorer", "plylab/ground_truth"), ("scorer", "plylab/suite_truth"), ("metric", "plylab/wilson"))))
"""


def test_importing_the_entry_point_registers_the_scorers_and_the_metric() -> None:
    """In a fresh process that builds no task: the two scorers and the Wilson metric are found by name."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", REGISTERED], capture_output=True, text=True, env=env, timeout=300, check=True
    )
    assert done.stdout.split() == ["True", "True", "True"], done.stderr


def inspect_score(log: Path, out: Path, *args: str) -> Any:
    """`inspect score LOG ARGS` in a child process, the scored log written to `out`; that log. The
    log's model (scripted, known to this process alone) is replaced by the embedded one, which inspect
    builds and the scorers never call."""
    from inspect_ai.log import read_eval_log

    inspect = shutil.which("inspect", path=str(Path(sys.executable).parent))
    assert inspect
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [
            inspect,
            "score",
            str(log),
            *args,
            "--model",
            "plylab/local",
            "--output-file",
            str(out),
            "--display",
            "none",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return read_eval_log(str(out))


def scores(log: Any, name: str) -> list[tuple[Any, ...]]:
    return [
        (s.id, s.scores[name].value, s.scores[name].answer, s.scores[name].metadata)
        for s in sorted(log.samples, key=lambda s: s.id)
    ]


def metrics(log: Any) -> dict[str, dict[str, float]]:
    return {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores}


def same(a: Any, b: Any) -> bool:
    """Equal, NaN equal to NaN (an unscored figure stays unscored)."""
    return repr(a) == repr(b)


@pytest.mark.slow
def test_inspect_score_rescores_a_game_log_to_the_same_scores(tmp_path: Path) -> None:
    """A scripted model that never names a move (a random move played for it, recorded as its
    failure) against the optimal player: every decision graded by the exact table. `inspect score
    --scorer plylab/ground_truth` re-scores the log: the same scores, sample by sample, and the same
    metrics with their Wilson interval."""
    log = eval_in_process(
        tmp_path / "logs",
        "scripted-nomove/m",
        game="tic_tac_toe",
        opponent="optimal",
        games=2,
        player="on_failure=random",
    )
    assert log.status == "success", log.error
    assert all(
        sample.target.startswith("a best move at every graded decision, by the exact")
        for sample in log.samples
    )
    assert sum(s.scores["ground_truth"].metadata["informative"] for s in log.samples) > 0
    [path] = (tmp_path / "logs").glob("*.eval")
    again = inspect_score(
        path, tmp_path / "again.eval", "--scorer", "plylab/ground_truth", "--action", "overwrite"
    )
    assert same(scores(again, "ground_truth"), scores(log, "ground_truth"))
    assert same(metrics(again), metrics(log))
    assert "plylab/wilson_high" in metrics(again)["optimal"]


@pytest.mark.slow
def test_inspect_score_rescores_a_suite_log_to_the_same_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    build(tmp_path, 3)
    log = eval_suite(tmp_path, "scripted-nomove/m", suite="t")
    assert log.status == "success", log.error
    [path] = (tmp_path / "logs").glob("*.eval")
    again = inspect_score(
        path, tmp_path / "again.eval", "--scorer", "plylab/suite_truth", "--action", "overwrite"
    )
    assert same(scores(again, "suite_truth"), scores(log, "suite_truth"))
    assert same(metrics(again), metrics(log))


@pytest.mark.slow
def test_a_game_log_reads_back_typed(tmp_path: Path) -> None:
    """The sample's store read back from the log as plylab's own record (`MoveRow`, the one move
    shape): each graded move's values as the store holds them, keyed by legal actions."""
    log = eval_in_process(
        tmp_path,
        "scripted-nomove/m",
        game="tic_tac_toe",
        opponent="optimal",
        games=1,
        player="on_failure=random",
    )
    assert log.status == "success", log.error
    [sample] = log.samples
    record = played(sample)
    graded = [(json.loads(m.legal), json.loads(m.values_json)) for m in record.moves if m.values_json]
    assert graded and all(int(a) in legal for legal, values in graded for a in values)
    assert record.moves[-1].ply == len(record.moves) - 1
