"""`inspect eval plylab/suite -T suite=...`: a suite's positions as inspect samples (target the best
moves, metadata the truth), answered through the suite run's own job and scored as `plylab suite
report` scores them; and one result through two doors: `plylab suite run` and `inspect eval` with the
same model replies give the same answers and the same figures."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from plylab.cli import main
from plylab.suites.answer import Answer
from plylab.suites.file import read_suite
from tests.tasks.test_inspect_game import inspect_eval, model_events  # also registers the scripted model


def build(tmp: Path, positions: int = 10) -> Path:
    """`plylab suite build t --game tic_tac_toe --positions N --seed 1`, in `tmp` (suites/t.jsonl)."""
    argv = ["suite", "build", "t", "--game", "tic_tac_toe", "--positions", str(positions), "--seed", "1"]
    assert main(argv) == 0
    return tmp / "suites" / "t.jsonl"


def answered(sample: Any) -> Answer:
    """The sample's answer, read back typed from its store (`tasks.state.SuiteAnswered`)."""
    from plylab.tasks.state import SuiteAnswered

    answer = sample.store_as(SuiteAnswered).answer
    assert answer is not None
    return answer


def eval_suite(tmp: Path, model: str, **task_args: Any) -> Any:
    from inspect_ai import eval as inspect_eval_api

    import plylab.tasks  # noqa: F401 - what the entry point loads

    [log] = inspect_eval_api(
        "plylab/suite", task_args=task_args, model=model, log_dir=str(tmp / "logs"), display="none"
    )
    return log


@pytest.mark.slow
def test_a_sample_per_position_its_target_the_best_moves_its_metadata_the_truth(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scripted model that never names a move: each position one call (one ModelEvent), its answer
    a failure scored as the suite report scores one (not optimal, best minus worst lost)."""
    from plylab.analysis.stats import wilson

    monkeypatch.chdir(tmp_path)
    suite, _ = read_suite(str(build(tmp_path, 4)))
    log = eval_suite(tmp_path, "scripted-nomove/m", suite="t")
    assert log.status == "success", log.error
    assert [s.metadata["index"] for s in log.samples] == [p.index for p in suite.positions]
    for sample, pos in zip(log.samples, suite.positions, strict=True):
        grade = pos.grade()
        assert sorted(sample.target) == sorted(m.label for m in pos.moves if grade.is_best(m.action))
        assert sample.metadata["truth"]["id"] == pos.id
        assert sample.metadata["truth"]["moves"] == pos.content()["moves"]
        assert len(model_events(sample)) == 1
        answer = answered(sample)
        assert answer.action is None and answer.failure == "unparseable"
        score = sample.scores["suite_truth"]
        worst = min(m.value for m in pos.moves)
        assert score.value["optimal"] == 0.0 and score.value["failure"] == 1.0
        assert score.value["loss"] == pytest.approx(grade.best - worst)
        assert score.metadata["scale"] == "exact" and score.answer == "failure"
    names = {s.name: s for s in log.results.scores}
    assert names["optimal"].metrics["plylab/wilson_high"].value == pytest.approx(wilson(0, 4).high)
    assert "stderr" in names["loss"].metrics


def test_bad_task_parameters_are_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import plylab.tasks  # noqa: F401
    from plylab.errors import UserError
    from plylab.tasks.suite import suite

    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError, match="needs -T suite=NAME"):
        suite()
    with pytest.raises(UserError, match="unknown suite 'nope'"):
        suite(suite="nope")
    build(tmp_path, 2)
    with pytest.raises(UserError, match="unknown output 'enums'"):
        suite(suite="t", output="enums")


@pytest.mark.slow
def test_suite_report_reads_inspect_logs_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`plylab suite report --from-inspect DIR`: the suite tables from the logs of `inspect eval
    plylab/suite`, each sample's answer read back from its metadata; a folder without one is one line."""
    monkeypatch.chdir(tmp_path)
    suite, _ = read_suite(str(build(tmp_path, 3)))
    log = eval_suite(tmp_path, "scripted-nomove/m", suite="t")
    assert log.status == "success", log.error
    capsys.readouterr()
    assert main(["suite", "report", "--from-inspect", "logs", "--format", "json"]) == 0
    [row] = json.loads(capsys.readouterr().out)["players"]["players"]
    assert (
        row["suite"] == "t" and row["hash"] == suite.hash and row["player"] == "llm:model=scripted-nomove/m"
    )
    assert row["n"] == 3 and row["failures"] == 3 and row["calls"] == 3 and row["optimal"]["rate"] == 0.0
    (tmp_path / "empty").mkdir()
    assert main(["suite", "report", "--from-inspect", "empty"]) == 2
    err = capsys.readouterr().err
    assert "no logs of inspect eval plylab/suite in empty" in err and "Traceback" not in err
    assert main(["suite", "report", "--from-inspect", "logs", "--suite", "other"]) == 2
    assert "no logs of suite 'other'" in capsys.readouterr().err


@pytest.mark.model
def test_inspect_eval_a_ten_position_suite_with_the_local_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`inspect eval plylab/suite -T suite=t -T output=enum --model plylab/local`, offline, plylab
    found through its entry point: one ModelEvent per position, a score per sample."""
    monkeypatch.chdir(tmp_path)
    build(tmp_path)
    log = inspect_eval(
        tmp_path, "plylab/suite", "-T", "suite=t", "-T", "output=enum", "--model", "plylab/local"
    )
    assert log.status == "success", log.error
    assert len(log.samples) == 10
    for sample in log.samples:
        answer = answered(sample)
        assert answer.failure is None and answer.label is not None  # enum: always a legal move
        [event] = model_events(sample)
        assert event.output.completion == answer.reply
        assert set(sample.scores["suite_truth"].value) == {"optimal", "loss", "above_chance", "failure"}


@pytest.mark.model
def test_one_result_two_doors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same suite through `plylab suite run` and `inspect eval plylab/suite`, the local model at
    temperature 0 with output=enum: the same answer to every position, and the same figures (the
    suite report's rate, interval, loss and above-chance; the log's metrics)."""
    from plylab.suites.report import SuiteResults, players_table, read_results

    monkeypatch.chdir(tmp_path)
    build(tmp_path)
    argv = ["suite", "run", "t", "--player", "llm:model=local,output=enum", "--store", "s.sqlite", "-q"]
    assert main(argv) == 0
    capsys.readouterr()
    [(run, mine)] = read_results(tmp_path / "s.sqlite").runs
    log = eval_suite(tmp_path, "plylab/local", suite="t", output="enum")
    assert log.status == "success", log.error
    theirs = [answered(s) for s in log.samples]

    def said(a: Any) -> tuple[object, ...]:
        return (a.position, a.position_id, a.action, a.label, a.optimal, a.loss, a.failure)

    assert [said(a) for a in theirs] == [said(a) for a in mine]
    assert len({a.action for a in mine}) > 1  # not one move said everywhere

    figures = ("n", "optimal", "mean_loss", "above_chance", "failures")
    plylab_row = players_table(SuiteResults(((run, mine),))).data["players"][0]
    inspect_row = players_table(SuiteResults(((run, tuple(theirs)),))).data["players"][0]
    assert {k: plylab_row[k] for k in figures} == {k: inspect_row[k] for k in figures}
    names = {s.name: s for s in log.results.scores}
    optimal = names["optimal"].metrics
    assert optimal["mean"].value == pytest.approx(plylab_row["optimal"]["rate"])
    assert optimal["plylab/wilson_low"].value == pytest.approx(plylab_row["optimal"]["low"])
    assert optimal["plylab/wilson_high"].value == pytest.approx(plylab_row["optimal"]["high"])
    assert names["loss"].metrics["mean"].value == pytest.approx(plylab_row["mean_loss"])
    assert names["above_chance"].metrics["mean"].value == pytest.approx(plylab_row["above_chance"])
    assert not math.isnan(optimal["stderr"].value)
