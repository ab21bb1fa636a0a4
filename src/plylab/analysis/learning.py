"""Learning curves from `plylab learn` experiments: checkpoints, intervals, tests, plots.

Each evaluation phase of each run gives one value per metric (draw rate, win rate, per-move
optimality, output tokens per move, failure rate); a checkpoint's estimate is the mean over runs
with a Student-t 95% interval, as in the paper's Figures 4 and 5. Configurations are compared on
their final checkpoint by a one-sided Welch t-test, in the direction of the observed difference.
The single-call reference is the experiment's `--reference` phases, or else any `plylab run` of
an `llm` player in the same setting.

Two learning diagnostics sit beside the curves. The retrieval success rate of appendix D.4.1
(seed 003 l.413): of the agent's moves in a state some stored case was played in, the share whose
retrieved set held that case (recorded per move by the player, as `recall` in its note). And the
learning updates of every run, read from its memory's update log: reflections and rule
extractions, with those that failed, were cut off at max_tokens (`truncated`) or judged only part
of the game (`partial`) counted by kind, never silently replaced.
"""

from __future__ import annotations

import itertools
import json
import re
import textwrap
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..harness.store import Store
from ..jsontypes import JSONObject, JSONValue
from ..players.canonical import canonical_spec, printed_run_name
from ..players.reaper.memory import UpdateTally, update_log
from ..render.plot_style import styled
from .metrics import matchup_results
from .stats import Estimate, estimate_text, student_t, welch_one_sided, wilson
from .tables import FORMATS, format_grid

if TYPE_CHECKING:
    from matplotlib.figure import Figure

METRICS = ("draw_rate", "win_rate", "optimality", "tokens_per_move", "failure_rate")
TESTED = ("draw_rate", "win_rate", "optimality")
SETTING = ("game", "formulation", "opponent")


# -- the report's pieces (each `to_json` is what `plylab report --learning --format json` prints) --


def mean_json(e: Estimate) -> JSONObject:
    """A mean over runs as the report prints it (`Estimate.rate` is the mean)."""
    return {"mean": e.rate, "low": e.low, "high": e.high, "n": e.n}


def _rate_json(e: Estimate) -> JSONObject:
    return {"rate": e.rate, "low": e.low, "high": e.high, "n": e.n}


@dataclass(frozen=True)
class PhaseValues:
    """One phase's value of each metric (None where it has none) and its retrieval: (moves whose
    retrieval held the stored case, moves in a state some stored case was played in)."""

    values: dict[str, float | None]
    recall: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class Means:
    """Each metric's mean over `runs` runs with its Student-t 95% interval."""

    runs: int
    metrics: dict[str, Estimate]

    @classmethod
    def over(cls, per_run: Sequence[PhaseValues]) -> Means:
        return cls(
            len(per_run),
            {m: student_t([x for v in per_run if (x := v.values[m]) is not None]) for m in METRICS},
        )

    def to_json(self) -> JSONObject:
        return {"runs": self.runs, **{m: mean_json(e) for m, e in self.metrics.items()}}


@dataclass(frozen=True)
class LearningPoint:
    """A learning curve's point: one checkpoint's means over runs, and D.4.1's retrieval success
    pooled over those runs [Wilson] (no rate where no state recurred)."""

    checkpoint: int
    learning_games: int
    means: Means
    retrieval_success: Estimate

    def to_json(self) -> JSONObject:
        return {
            "checkpoint": self.checkpoint,
            "learning_games": self.learning_games,
            **self.means.to_json(),
            "retrieval_success": _rate_json(self.retrieval_success),
        }


@dataclass(frozen=True)
class Reference:
    """The single-call reference beside a curve: its player, where it comes from, its means; a
    `deviation` says how it departs from the paper's."""

    player: str
    source: str
    means: Means
    deviation: str | None = None

    def to_json(self) -> JSONObject:
        out: JSONObject = {"player": self.player, "source": self.source, **self.means.to_json()}
        return out if self.deviation is None else out | {"deviation": self.deviation}


@dataclass(frozen=True)
class UpdateCount:
    """Learning updates of one kind: made, failed by reason (`truncated`: cut off at max_tokens)."""

    total: int
    failed: dict[str, int]

    @classmethod
    def of(cls, log: list[UpdateTally], kind: str) -> UpdateCount:
        """The updates of `kind` in a memory's tallied update log (players/reaper/memory.py)."""
        failed: dict[str, int] = {}
        for t in log:
            if t.kind == kind and t.failure:
                failed[t.failure] = failed.get(t.failure, 0) + t.count
        return cls(sum(t.count for t in log if t.kind == kind), failed)

    @property
    def truncated(self) -> int:
        return self.failed.get("truncated", 0)

    def to_json(self) -> JSONObject:
        return {"total": self.total, "failed": dict(self.failed), "truncated": self.truncated}


@dataclass(frozen=True)
class RunUpdates:
    run: int
    memory: str | None
    reflect: UpdateCount
    rules: UpdateCount

    def to_json(self) -> JSONObject:
        return {
            "run": self.run,
            "memory": self.memory,
            "reflect": self.reflect.to_json(),
            "rules": self.rules.to_json(),
        }


@dataclass(frozen=True)
class Updates:
    """Reflections and rule extractions of an experiment, in all and per run."""

    reflect: UpdateCount
    rules: UpdateCount
    runs: list[RunUpdates]

    def to_json(self) -> JSONObject:
        return {
            "reflect": self.reflect.to_json(),
            "rules": self.rules.to_json(),
            "runs": [r.to_json() for r in self.runs],
        }


def _text(ident: JSONObject, key: str) -> str:
    value = ident.get(key)
    assert isinstance(value, str), (key, value)
    return value


@dataclass(frozen=True)
class LearningExperiment:
    """One `plylab learn` experiment: its identity as printed (specs canonical, `shown_name`; `name`
    stays the stored one its phases' runs are made from), its curve, updates and reference."""

    identity: JSONObject
    checkpoints: list[LearningPoint]
    updates: Updates
    reference: Reference | None
    final: list[PhaseValues] = field(default_factory=list, compare=False)  # the last checkpoint's runs

    @property
    def name(self) -> str:
        return _text(self.identity, "name")

    @property
    def shown_name(self) -> str:
        return _text(self.identity, "shown_name")

    @property
    def agent(self) -> str:
        return _text(self.identity, "agent")

    @property
    def setting(self) -> tuple[str, ...]:
        return tuple(_text(self.identity, k) for k in SETTING)

    def to_json(self) -> JSONObject:
        return {
            **self.identity,
            "checkpoints": [c.to_json() for c in self.checkpoints],
            "updates": self.updates.to_json(),
            "reference": None if self.reference is None else self.reference.to_json(),
        }


@dataclass(frozen=True)
class Comparison:
    """A one-sided Welch t-test of two configurations on their final checkpoint, in the direction
    of the observed difference."""

    metric: str
    better: str
    worse: str
    mean_better: float
    mean_worse: float
    runs: tuple[int, int]
    p_value: float | None

    def to_json(self) -> JSONObject:
        return {
            "metric": self.metric,
            "better": self.better,
            "worse": self.worse,
            "mean_better": self.mean_better,
            "mean_worse": self.mean_worse,
            "runs": list(self.runs),
            "p_value": self.p_value,
        }


@dataclass(frozen=True)
class LearningReport:
    experiments: list[LearningExperiment]
    comparisons: list[Comparison]

    def to_json(self) -> JSONObject:
        return {
            "experiments": [e.to_json() for e in self.experiments],
            "comparisons": [c.to_json() for c in self.comparisons],
        }


# -- reading the store -----------------------------------------------------------------------


@dataclass(frozen=True)
class _Phase:
    """A learning phase's plan (its run's JSON plan, as `plylab learn` writes it)."""

    learn: JSONObject  # the experiment's identity, as stored
    phase: str
    index: int
    run: int
    memory: str | None
    player: str | None

    @classmethod
    def of(cls, plan_text: str) -> _Phase:
        plan = json.loads(plan_text)
        return cls(
            plan["learn"], plan["phase"], plan.get("index", 0), plan.get("run", 0), plan.get("memory"),
            plan.get("player"),
        )  # fmt: skip


def _matchup_values(store: Store, run: str) -> list[tuple[tuple[str, ...], str, PhaseValues]]:
    """(setting, player, metric values) of each matchup row of `run` (the one reader of
    analysis.metrics' rows here)."""
    out = []
    for row in matchup_results(store, run):
        values: dict[str, float | None] = {
            "draw_rate": row.draw_rate.rate,
            "win_rate": row.win_rate.rate,
            "optimality": row.optimality.rate,
            "tokens_per_move": row.tokens_per_move.mean,
            "failure_rate": row.failures / row.games if row.games else None,
        }
        out.append((tuple(row.column(k) for k in SETTING), row.player, PhaseValues(values)))
    return out


def _pooled_recall(per_run: list[PhaseValues]) -> Estimate:
    """D.4.1's retrieval success over the checkpoint's runs [Wilson]; no rate where no state recurred."""
    return wilson(sum(v.recall[0] for v in per_run), sum(v.recall[1] for v in per_run))


def _phase_rows(store: Store) -> list[tuple[_Phase, PhaseValues]]:
    """(plan, metric values) of every learning phase that has games."""
    out = []
    for r in store.runs():
        if r.kind != "learn":
            continue
        rows = _matchup_values(store, r.name)
        if rows:
            out.append((_Phase.of(r.plan), PhaseValues(rows[0][2].values, _recall(store, r.id))))
    return out


def _recall(store: Store, run_id: int) -> tuple[int, int]:
    """(retrieved, in memory): moves in a stored state, and those whose retrieval found it (D.4.1)."""
    hits = n = 0
    for note in store.frame([run_id]).player_notes("recall"):
        flag = json.loads(note).get("recall")
        if isinstance(flag, bool):
            n += 1
            hits += flag
    return hits, n


def _memory_file(folder: Path) -> Path | None:
    """A run's memory: the latest, else its last checkpoint."""
    if (folder / "memory.sqlite").is_file():
        return folder / "memory.sqlite"
    checkpoints = sorted(folder.glob("checkpoint-*.sqlite"), key=lambda p: int(p.stem.split("-")[1]))
    return checkpoints[-1] if checkpoints else None


def _updates(store: Store, items: list[tuple[_Phase, PhaseValues]]) -> Updates:
    """Reflections and rule extractions per run, from each run memory's update log."""
    folders: dict[int, Path] = {}
    for plan, _ in items:
        if plan.memory:
            folders.setdefault(plan.run, (store.path.parent / plan.memory).parent)
    runs, every = [], []
    for run, folder in sorted(folders.items()):
        path = _memory_file(folder)
        log = update_log(path) if path is not None else []
        every += log
        runs.append(
            RunUpdates(
                run, str(path) if path else None, UpdateCount.of(log, "reflect"), UpdateCount.of(log, "rules")
            )
        )
    return Updates(UpdateCount.of(every, "reflect"), UpdateCount.of(every, "rules"), runs)


def _play_references(store: Store, setting: tuple[str, ...]) -> list[tuple[str, PhaseValues]]:
    return _play_references_in(store, [r.name for r in store.runs() if r.kind != "learn"], setting)


def section_reference(store: Store, run: str, setting: tuple[str, ...]) -> Reference | None:
    """The `llm` player's row of `run` in `setting` as a reference (its one run's values), or None."""
    if run not in {r.name for r in store.runs()}:
        return None
    found = [v for _, v in _play_references_in(store, [run], setting)]
    if not found:
        return None
    return Reference("llm", run, Means.over(found))


def _play_references_in(
    store: Store, runs: list[str], setting: tuple[str, ...]
) -> list[tuple[str, PhaseValues]]:
    setting = (*setting[:-1], canonical_spec(setting[-1]))  # rows name the opponent canonically
    out = []
    for name in runs:
        for where, player, values in _matchup_values(store, name):
            if where == setting and re.match(r"llm(:|$)", player):
                out.append((name, values))
    return out


def _shown(ident: JSONObject) -> JSONObject:
    """An experiment's identity as printed: its specs canonical, in `shown_name` too (`name` stays
    the stored one its phases' runs are made from, by which the paper's figures find it)."""
    return {
        **ident,
        "shown_name": printed_run_name(_text(ident, "name")),
        **{k: canonical_spec(v) for k in ("agent", "opponent") if isinstance(v := ident.get(k), str) and v},
    }


def learning_data(store: Store, run: str | None = None) -> LearningReport:
    """Experiments (per agent, per checkpoint estimates, reference) and final-checkpoint comparisons."""
    by_exp: dict[str, list[tuple[_Phase, PhaseValues]]] = defaultdict(list)
    for plan, values in _phase_rows(store):
        by_exp[_text(plan.learn, "name")].append((plan, values))

    def shown_name(items: list[tuple[_Phase, PhaseValues]]) -> JSONValue:
        return _shown(items[0][0].learn)["shown_name"]

    if run is not None:
        # an experiment is named as printed (specs canonical) or as stored
        run = next((k for k, v in by_exp.items() if run in (k, shown_name(v))), run)
        if run not in by_exp:
            raise UserError(
                f"no learning experiment '{run}' in {store.path}; experiments here: "
                f"{', '.join(str(shown_name(v)) for v in by_exp.values()) or 'none (run `plylab learn` first)'}"
            )
        by_exp = {run: by_exp[run]}
    experiments = []
    for items in by_exp.values():
        stored = items[0][0].learn
        ident = _shown(stored)
        evals: dict[int, list[PhaseValues]] = defaultdict(list)
        refs: list[PhaseValues] = []
        for plan, values in items:
            if plan.phase == "eval":
                evals[plan.index].append(values)
            elif plan.phase == "reference":
                refs.append(values)
        reference = None
        if refs:
            player = canonical_spec(next(p.player or "" for p, _ in items if p.phase == "reference"))
            reference = Reference(player, "reference phases", Means.over(refs))
        else:
            found = _play_references(store, tuple(_text(stored, k) for k in SETTING))
            if found:
                reference = Reference(
                    "llm", ", ".join(n for n, _ in found), Means.over([v for _, v in found])
                )
        learn_games = ident.get("learn_games")
        assert isinstance(learn_games, int), learn_games
        experiments.append(
            LearningExperiment(
                ident,
                [
                    LearningPoint(c, c * learn_games, Means.over(evals[c]), _pooled_recall(evals[c]))
                    for c in sorted(evals)
                ],
                _updates(store, items),
                reference,
                evals[max(evals)] if evals else [],
            )
        )
    return LearningReport(experiments, _comparisons(experiments))


def _comparisons(experiments: list[LearningExperiment]) -> list[Comparison]:
    out = []
    for a, b in itertools.combinations(experiments, 2):
        if a.setting != b.setting or not a.final or not b.final:
            continue
        for metric in TESTED:
            xa = [x for v in a.final if (x := v.values[metric]) is not None]
            xb = [x for v in b.final if (x := v.values[metric]) is not None]
            if not xa or not xb:
                continue
            hi, lo, xhi, xlo = (a, b, xa, xb) if sum(xa) / len(xa) >= sum(xb) / len(xb) else (b, a, xb, xa)
            out.append(
                Comparison(
                    metric,
                    hi.shown_name,
                    lo.shown_name,
                    sum(xhi) / len(xhi),
                    sum(xlo) / len(xlo),
                    (len(xhi), len(xlo)),
                    welch_one_sided(xhi, xlo) if len(set(xhi)) + len(set(xlo)) > 2 else None,
                )
            )
    return out


# -- rendering -------------------------------------------------------------------------------


def _cell(est: Estimate | None, digits: int = 3) -> str:
    if est is None or est.rate is None:
        return "–"
    return estimate_text(est.rate, est.low, est.high, est.n, lambda x: f"{x:.{digits}f}")


def _grid(data: LearningReport) -> tuple[list[str], list[list[str]]]:
    header = [
        "agent",
        "checkpoint",
        "runs",
        "draw rate",
        "win rate",
        "optimality",
        "tokens/move",
        "failure rate",
        "retrieval success",
    ]
    body = []
    for e in data.experiments:
        points: list[tuple[str, Means, Estimate | None]] = [
            (str(c.checkpoint), c.means, c.retrieval_success) for c in e.checkpoints
        ]
        if e.reference:
            points.append((f"reference ({e.reference.player})", e.reference.means, None))
        for label, means, recall in points:
            m = means.metrics
            body.append(
                [
                    e.agent,
                    label,
                    str(means.runs),
                    _cell(m["draw_rate"]),
                    _cell(m["win_rate"]),
                    _cell(m["optimality"]),
                    _cell(m["tokens_per_move"], 1),
                    _cell(m["failure_rate"]),
                    _recall_cell(recall),
                ]
            )
    return header, body


def _recall_cell(est: Estimate | None) -> str:
    if est is None or est.rate is None:
        return "–"
    text = estimate_text(est.rate, est.low, est.high, est.n, lambda x: f"{x:.3f}")
    return text if text.endswith(")") else f"{text} (n={est.n})"


def _failed(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"


def _update_notes(data: LearningReport) -> list[str]:
    """Per experiment and run: learning updates made and how many failed, by kind."""
    out = []
    for e in data.experiments:
        u = e.updates
        if not u.runs:
            continue
        per_run = "; ".join(
            f"run {r.run}: {r.reflect.total} reflections ({_failed(r.reflect.failed)} failed, "
            f"{r.reflect.truncated} truncated), {r.rules.total} rule extractions "
            f"({_failed(r.rules.failed)} failed, {r.rules.truncated} truncated)"
            for r in u.runs
        )
        out.append(
            f"{e.shown_name} updates: {u.reflect.total} reflections, failed: {_failed(u.reflect.failed)}; "
            f"{u.rules.total} rule extractions, failed: {_failed(u.rules.failed)} — {per_run}"
        )
    return out


def _tests(data: LearningReport) -> list[str]:
    return [
        f"{t.metric}: {t.better} ({t.mean_better:.3f}) > {t.worse} ({t.mean_worse:.3f}), "
        f"one-sided Welch p = {'–' if t.p_value is None else format(t.p_value, '.3g')}"
        for t in data.comparisons
    ]


def learning_report(store_path: Path, run: str | None, fmt: str) -> str:
    """The learning report as json, markdown, csv or a terminal table."""
    store = Store(store_path, create=False)
    try:
        data = learning_data(store, run)
        if not data.experiments:
            played = len(store.runs())
            raise UserError(
                f"no learning runs in {store_path} ({played} other run{'s' * (played != 1)}: see `plylab "
                "report`); `plylab learn` makes one"
            )
    finally:
        store.close()
    if fmt == "json":
        return json.dumps(data.to_json(), indent=2)
    if fmt not in FORMATS:
        raise UserError(f"unknown format '{fmt}'; accepted: {', '.join(FORMATS)}")
    header, body = _grid(data)
    title = "learning checkpoints: mean over runs [95% Student-t]"
    return format_grid(header, body, fmt, title=title, notes=_tests(data) + _update_notes(data))


# -- plots -----------------------------------------------------------------------------------

PLOTTED = {"draw_rate": "draw rate", "tokens_per_move": "output tokens per move"}


def plot_learning(store_path: Path, run: str | None, out_dir: Path) -> list[Path]:
    """Figures 4/5-style curves (PNG and SVG) per setting and metric: mean ± t-interval per
    checkpoint for each agent, the single-call reference as a dashed line (plylab's plot style)."""
    with styled():
        return _plot_learning(store_path, run, out_dir)


def _plot_learning(store_path: Path, run: str | None, out_dir: Path) -> list[Path]:
    store = Store(store_path, create=False)
    try:
        data = learning_data(store, run)
    finally:
        store.close()
    out_dir.mkdir(parents=True, exist_ok=True)
    groups: dict[tuple[str, ...], list[LearningExperiment]] = defaultdict(list)
    for e in data.experiments:
        groups[e.setting].append(e)
    written = []
    for setting, exps in groups.items():
        for metric, title in PLOTTED.items():
            fig = _curves(exps, metric, f"{title}: {' / '.join(setting)}", title)
            stem = re.sub(r"[^A-Za-z0-9._-]+", "_", "-".join((*setting, metric)))
            for ext in ("png", "svg"):
                path = out_dir / f"learning-{stem}.{ext}"
                fig.savefig(path, dpi=150)
                written.append(path)
    return written


def _wrap(text: str, width: int = 40) -> str:
    """Long specs (an agent with many keys) on several lines, so a legend never squeezes the axes away."""
    return "\n".join(textwrap.wrap(text.replace(",", ", "), width)) or text


def error_bars(estimates: list[Estimate]) -> tuple[list[float], list[list[float]]]:
    """Means and their interval's arms below and above, for `errorbar` (estimates that have a mean)."""
    ys, below, above = [], [], []
    for e in estimates:
        assert e.rate is not None and e.low is not None and e.high is not None, e
        ys.append(e.rate)
        below.append(e.rate - e.low)
        above.append(e.high - e.rate)
    return ys, [below, above]


def _curves(exps: list[LearningExperiment], metric: str, title: str, ylabel: str) -> Figure:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(6, 4), layout="constrained")
    ax = fig.subplots()
    agents = [e.agent for e in exps]
    refs: dict[tuple[str, float], str | None] = {}  # one dashed line per distinct reference
    for i, e in enumerate(exps):
        pts = [c for c in e.checkpoints if c.means.metrics[metric].rate is not None]
        if not pts:
            continue
        dodge = (i - (len(exps) - 1) / 2) * 0.04  # keeps overlapping error bars apart
        ys, err = error_bars([c.means.metrics[metric] for c in pts])
        label = _wrap(e.agent if agents.count(e.agent) == 1 else e.shown_name)
        line = ax.errorbar(
            [c.checkpoint + dodge for c in pts], ys, yerr=err, marker="o", capsize=3, label=label
        )
        ref = e.reference
        if ref and (mean := ref.means.metrics[metric].rate) is not None:
            refs.setdefault((ref.player, mean), line[0].get_color())
    for (player, mean), color in refs.items():
        ax.axhline(
            mean,
            linestyle="--",
            color=color if len(refs) > 1 else "grey",
            label=_wrap(f"single-call reference ({player})"),
        )
    ax.set_xlabel("checkpoint (learning phases completed)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(ylabel)
    ax.set_title(_wrap(title, 60))
    if metric == "draw_rate":
        ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize="small")
    return fig
