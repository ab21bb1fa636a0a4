"""`inspect eval plylab/suite`: a suite's positions, the model under evaluation answering each once.

    inspect eval plylab/suite -T suite=ttt-200 -T output=enum --model plylab/local

A sample per position, in the suite's order: its input the mover's view (what the formulation shows
the seat to move, never what it cannot know), its target the position's best moves (their labels),
its metadata the truth (the suite file's line: history, mover, every legal move's value, the scale,
the difficulty features). The answer is got exactly as `plylab suite run` gets it: the job
`suites.study.suite_job` builds, whose `play` rebuilds the state and asks a fresh `llm` player
through `Player.act`, the model under evaluation bound for the solver (one ModelEvent per call in
the sample's transcript). The answer (`suites.answer.Answer`) goes to the sample's store (`tasks.state.SuiteAnswered`).

The scorer (`suite_truth`) is the suite report's: per sample `optimal` (1 or 0), `loss` on the
suite's graded scale, `above_chance` (optimal less the position's random baseline) and `failure`;
the metrics are inspect's `mean` and `stderr` and the pooled rate with its Wilson interval
(`analysis.inspect_scores.wilson_metric`), so the log's figures are `plylab suite report`'s.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Metric, Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..analysis.inspect_scores import scale_of, wilson_metric
from ..errors import UserError
from ..players import RunContext
from ..players.canonical import canonical_spec
from ..suites.answer import Answer
from ..suites.file import Position, Suite, read_suite
from ..suites.report import SuiteResults
from ..suites.study import SuiteRun, SuiteStudy, suite_job
from .arguments import refused_in_one_line, text
from .game import llm_spec
from .state import SuiteAnswered

__all__ = ["answer_score", "answer_suite", "results_from_logs", "suite", "suite_truth"]


@task(name="suite")
def suite(suite: str = "", output: str = "text", player: str = "") -> Task:
    """A plylab suite, the model under evaluation answering every position once.

    Args:
        suite: the suite's name (`suites/NAME.jsonl`, as `plylab suite run NAME`) or its file's path.
        output: the player's answer: `text` (the paper's free answer), `json`, or `enum` (constrained
            to the legal moves: constrained decoding on `plylab/local`).
        player: further `llm` keys, comma-separated (`prompt=reason,on_failure=retry:2`).
    """
    with refused_in_one_line("plylab/suite"):
        suite, output, player = text("suite", suite), text("output", output), text("player", player)
        if not suite.strip():
            raise UserError("needs -T suite=NAME (suites/NAME.jsonl) or -T suite=PATH")
        read, _ = read_suite(suite)
        # checked as `plylab suite run` checks its players, the local model standing in for inspect's
        SuiteStudy(read, [llm_spec("local", output, player)])
    samples = [_sample(read, pos) for pos in read.positions]
    return Task(
        dataset=MemoryDataset(samples, name=read.name),
        solver=answer_suite(read, output, player),
        scorer=suite_truth(),
        metadata={
            "suite": read.name,
            "hash": read.hash,
            "game": read.game,
            "formulation": read.formulation,
            "truth": read.truth,
        },
    )


def _sample(read: Suite, pos: Position) -> Sample:
    grade = pos.grade()
    turn = suite_job(read, pos, "random").turn()
    return Sample(
        id=pos.index + 1,
        input=f"{read.game} ({read.formulation}), seat {pos.mover} to move:\n{turn.view}",
        target=[m.label for m in pos.moves if grade.is_best(m.action)],
        metadata={"index": pos.index, "truth": {**pos.content(), "id": pos.id}},
    )


@solver(name="answer_suite")
def answer_suite(read: Suite, output: str = "text", player: str = "") -> Solver:
    """Put the sample's position to the `llm` player calling the model under evaluation, through the
    suite run's own job (`suites.study.suite_job`); its answer goes to the sample's store (`SuiteAnswered`)."""
    by_index = {p.index: p for p in read.positions}

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        from inspect_ai.model import get_model

        from ..models.model import Model, bound_model

        model = Model.under_evaluation(get_model())
        spec = canonical_spec(llm_spec(model.name, output, player))
        job = suite_job(read, by_index[int(state.metadata["index"])], spec)
        with bound_model(model):
            answer = await job.play(RunContext())
        state.store_as(SuiteAnswered).answer = answer
        said = answer.label if answer.label is not None else f"no move ({answer.failure})"
        state.output = ModelOutput.from_content(model.name, said)
        state.completed = True
        return state

    return solve


def answer_score(answer: Answer, scale: str) -> Score:
    """One position's figures, as `plylab suite report` counts them: every suite position is an
    informative decision (suites keep no other), a failure is not optimal and loses the worst move's
    loss (`suites.study.SuiteJob.play`)."""
    optimal = 1.0 if answer.optimal else 0.0
    failed = answer.action is None
    return Score(
        value={
            "optimal": optimal,
            "loss": answer.loss,
            "above_chance": optimal - answer.chance,
            "failure": 1.0 if failed else 0.0,
        },
        answer=answer.label if not failed else "failure",
        explanation=(
            f"{'a best move' if answer.optimal else 'not a best move'}"
            f"{'' if not failed else f' (no move: {answer.failure})'}, loss {answer.loss:.4g} on the "
            f"{scale} scale"
        ),
        metadata={"scale": scale, "best": int(answer.optimal), "informative": 1, "chance": answer.chance},
    )


def suite_metrics() -> dict[str, list[Metric]]:
    """Positions averaged with inspect's `mean` and `stderr`; the optimal rate also with its Wilson
    interval, as the suite report prints it."""
    return {
        "optimal": [mean(), stderr(), wilson_metric()],
        "loss": [mean(), stderr()],
        "above_chance": [mean()],
        "failure": [mean()],
    }


@scorer(metrics=suite_metrics(), name="suite_truth")
def suite_truth() -> Scorer:
    """The scorer of a sample the suite's solver answered (its store's `SuiteAnswered`). Registered
    when `plylab.tasks` is imported (`plylab/suite_truth`), so `inspect score` finds it."""

    async def score(state: TaskState, target: Target) -> Score:
        answer = state.store_as(SuiteAnswered).answer
        if answer is None:
            raise ValueError("the sample holds no plylab answer (a sample of plylab/suite holds one)")
        truth = Position.from_json(state.metadata["truth"])
        return answer_score(answer, scale_of(truth.grade()))

    return score


def results_from_logs(log_dir: Path) -> SuiteResults:
    """The suite runs of `inspect eval plylab/suite` logs in `log_dir` as the suite report reads a
    store's (`plylab suite report --from-inspect DIR`): each log one run of its suite, its samples'
    answers (their stores' `SuiteAnswered`); UserError where the folder holds none."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    if not log_dir.is_dir():
        raise UserError(f"no folder '{log_dir}' of inspect logs")
    runs: list[tuple[SuiteRun, tuple[Answer, ...]]] = []
    for info in sorted(list_eval_logs(str(log_dir), recursive=True), key=lambda i: i.name):
        log = read_eval_log(info)
        meta = log.eval.metadata or {}
        if log.eval.task != "plylab/suite" or "hash" not in meta or not log.samples:
            continue
        held = (s.store_as(SuiteAnswered).answer for s in log.samples)
        answers = tuple(a for a in held if a is not None)
        name = f"{log.eval.task}@{log.eval.run_id}"
        runs.append(
            (SuiteRun(len(runs) + 1, name, str(meta["suite"]), str(meta["hash"]), str(meta["game"])), answers)
        )
    if not runs:
        raise UserError(
            f"no logs of inspect eval plylab/suite in {log_dir}; run one with inspect eval plylab/suite -T suite=NAME"
        )
    return SuiteResults(tuple(runs))
