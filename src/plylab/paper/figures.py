"""Figures 4-6 (REAPER learning curves): checkpoint estimates from analysis.learning, the paper's
printed values beside them, and the plots (matplotlib PNG + SVG).

The seed prints final means and one-sided Welch p-values (003 l.182, l.188-190) but no
intervals for them, so the mark here is `outside` where the paper's mean lies outside the
reproduced 95% Student-t interval.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from ..analysis.learning import (
    Comparison,
    LearningExperiment,
    LearningReport,
    error_bars,
    learning_data,
    mean_json,
    section_reference,
)
from ..analysis.stats import Estimate, estimate_text
from ..errors import UserError
from ..harness.store import Store
from ..jsontypes import JSONObject, JSONValue
from ..render.grid import comment, grid, html_page
from .protocols import get_protocol
from .published import published

METRICS = (("draw_rate", "draw rate"), ("optimality", "optimality"), ("tokens_per_move", "tokens/move"))


def _est(e: Estimate | None, digits: int = 3) -> str:
    if e is None or e.rate is None:
        return "missing"
    return estimate_text(e.rate, e.low, e.high, e.n, lambda x: f"{x:.{digits}f}")


def _outside(mine: Estimate | None, published: float | None) -> bool | None:
    """Whether the paper's value lies outside the reproduced interval (None: no interval, or no value)."""
    if published is None or mine is None or mine.low is None or mine.high is None or mine.n < 2:
        return None
    return not (mine.low <= published <= mine.high)


@dataclass(frozen=True)
class FinalMark:
    """An experiment's final checkpoint beside the paper's final mean, for one metric."""

    experiment: str | None
    agent: str
    metric: str
    reproduced: Estimate | None
    checkpoint: int | None
    published: float | None
    outside: bool | None

    def to_json(self) -> JSONObject:
        return {
            "experiment": self.experiment,
            "agent": self.agent,
            "metric": self.metric,
            "reproduced": None if self.reproduced is None else mean_json(self.reproduced),
            "checkpoint": self.checkpoint,
            "published": self.published,
            "outside": self.outside,
        }


@dataclass(frozen=True)
class CheckpointMark:
    """A value the paper states at every checkpoint, beside one reproduced checkpoint ("every"
    where the store has none)."""

    agent: str
    metric: str
    checkpoint: int | str
    reproduced: Estimate | None
    published: float
    outside: bool | None

    def to_json(self) -> JSONObject:
        return {
            "agent": self.agent,
            "metric": self.metric,
            "checkpoint": self.checkpoint,
            "reproduced": None if self.reproduced is None else mean_json(self.reproduced),
            "published": self.published,
            "outside": self.outside,
        }


@dataclass(frozen=True)
class FigureData:
    """A learning figure as data: its experiments' curves, final and every-checkpoint marks beside the
    paper's values, and the Welch tests of both."""

    figure: str
    title: str
    cite: list[str]
    protocol: JSONObject
    experiments: list[LearningExperiment]
    finals: list[FinalMark]
    every_checkpoint: list[CheckpointMark]
    welch: list[Comparison]
    published_welch: list[JSONObject]
    published_model: JSONValue
    published_text: JSONValue

    def to_json(self) -> JSONObject:
        return {
            "figure": self.figure,
            "title": self.title,
            "cite": list(self.cite),
            "protocol": self.protocol,
            "experiments": [e.to_json() for e in self.experiments],
            "finals": [f.to_json() for f in self.finals],
            "every_checkpoint": [x.to_json() for x in self.every_checkpoint],
            "welch": [t.to_json() for t in self.welch],
            "published_welch": list(self.published_welch),
            "published_model": self.published_model,
            "published_text": self.published_text,
        }


def _label(e: LearningExperiment) -> str:
    return e.name.rsplit("/", 1)[-1]


def figure_data(store_path: Path | None, name: str, runs: list[str] | None = None) -> FigureData:
    """The figure as data: experiments' checkpoints, finals and checkpoint marks beside the paper's
    (the paper's numbers alone without a store)."""
    p = get_protocol(name)
    pub = published(name)
    data = LearningReport([], [])
    if store_path is not None:
        store = Store(store_path, create=False)
        try:
            data = learning_data(store)
            if p.reference_from:
                data = replace(data, experiments=_seed_reference(store, p.reference_from, data.experiments))
        finally:
            store.close()
    prefix = f"paper/{name}/"
    prefixes = [r.rstrip("/") + "/" for r in runs] if runs else [prefix]
    # agents that are another figure's experiment (Fig. 6's state-mode ones are Fig. 4's)
    shared = {(f"paper/{a.same_as}/", a.label) for a in p.agents if a.same_as and not runs}
    exps = [
        e
        for e in data.experiments
        if e.name in (runs or [])
        or e.name.startswith(tuple(prefixes))
        or any(e.name.startswith(pre) and e.name.endswith("/" + lab) for pre, lab in shared)
    ]
    names = {e.name for e in exps}
    finals = []
    for e in exps:
        label = _label(e)
        last = e.checkpoints[-1] if e.checkpoints else None
        paper = pub.final.get(label, {})
        for metric, _ in METRICS:
            mine = (
                last.means.metrics[metric] if last and last.means.metrics[metric].rate is not None else None
            )
            if metric not in paper and mine is None:
                continue
            pv = paper.get(metric)
            finals.append(
                FinalMark(
                    e.name, label, metric, mine, last.checkpoint if last else None, pv, _outside(mine, pv)
                )
            )
    # values the paper states hold at every checkpoint (Fig. 5: Original's draw rate is 0, l.188)
    every = []
    for e in exps:
        label = _label(e)
        for metric, pv in pub.all_checkpoints.get(label, {}).items():
            for cp in e.checkpoints:
                mine = cp.means.metrics[metric] if cp.means.metrics[metric].rate is not None else None
                every.append(
                    CheckpointMark(label, metric, cp.checkpoint, mine, pv, _outside(mine, pv))
                )  # one run: no interval
    for label, metrics in pub.all_checkpoints.items():
        if not any(x.agent == label for x in every):
            every += [CheckpointMark(label, m, "every", None, pv, None) for m, pv in metrics.items()]
    # agents of the protocol the store has no experiment for: the paper's numbers, shown as missing
    have = {_label(e) for e in exps}
    for agent in p.agents:
        if agent.label not in have:
            for metric, pv in pub.final.get(agent.label, {}).items():
                finals.append(FinalMark(None, agent.label, metric, None, None, pv, None))
    tests = [
        replace(t, better=t.better.rsplit("/", 1)[-1], worse=t.worse.rsplit("/", 1)[-1])
        for t in data.comparisons
        if t.better in names and t.worse in names and t.mean_better != t.mean_worse
    ]
    return FigureData(
        name,
        p.title,
        list(p.cite),
        p.describe(),
        exps,
        finals,
        every,
        tests,
        pub.welch,
        pub.model,
        pub.text,
    )


def _seed_reference(
    store: Store, table: str, experiments: list[LearningExperiment]
) -> list[LearningExperiment]:
    """The figure's dashed line as the seed names it: the model's single-call run of `table`
    (`paper/<table>/<model>`, same game, formulation and opponent), in place of the experiment's
    own reference phases; where the store has none, the phases stay, marked as not the seed's."""
    out = []
    for e in experiments:
        parts = e.name.split("/")
        if len(parts) >= 4 and parts[0] == "paper":
            found = section_reference(store, f"paper/{table}/{parts[2]}", e.setting)
            if found is not None:
                e = replace(e, reference=found)
            elif e.reference is not None:
                deviation = (
                    f"not the seed's Section 3 player (003 l.176): run `plylab paper run {table}` for it"
                )
                e = replace(e, reference=replace(e.reference, deviation=deviation))
        out.append(e)
    return out


def _grid(data: FigureData) -> tuple[list[str], list[list[str]]]:
    header = ["experiment", "checkpoint", "learning games", "runs"] + [m[1] + " [t]" for m in METRICS]
    body = []
    for e in data.experiments:
        points = [(str(c.checkpoint), str(c.learning_games), c.means) for c in e.checkpoints]
        if e.reference:
            ref = e.reference
            where = " — not Section 3's" if ref.deviation else ""
            points.append((f"reference ({ref.player}, {ref.source}{where})", "–", ref.means))
        for cp, lg, means in points:
            body.append(
                [e.name, cp, lg, str(means.runs)]
                + [_est(means.metrics[m], 1 if m == "tokens_per_move" else 3) for m, _ in METRICS]
            )
    return header, body


def render_figure(data: FigureData, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(data.to_json(), indent=2)
    header, body = _grid(data)
    head = [f"{data.figure}: {data.title}", "protocol: " + "; ".join(data.cite)]
    if not data.experiments:
        head.append(f"no experiments yet: run `plylab paper run {data.figure} --model M`")
    fh = [
        "agent",
        "metric",
        "final checkpoint [95% t]",
        f"paper ({data.published_model})",
        "paper outside interval",
    ]
    fb = [
        [
            f.agent,
            f.metric,
            _est(f.reproduced, 1 if f.metric == "tokens_per_move" else 3),
            "–" if f.published is None else f"{f.published:.3f}",
            {True: "outside", False: "inside", None: "–"}[f.outside],
        ]
        for f in data.finals
    ]
    notes = [
        f"Welch (this run) {t.metric}: {t.better} > {t.worse}, one-sided p = "
        f"{'–' if t.p_value is None else format(t.p_value, '.3g')}"
        for t in data.welch
    ]
    notes += [
        f"Welch (paper) {t['metric']}: {t['better']} > {t['worse']}, one-sided p = {t['p_value']}"
        for t in data.published_welch
    ]
    if data.published_text:
        notes.append(f"paper: {data.published_text}")
    notes.append(
        "the paper prints final means without intervals: 'outside' = the paper's mean lies outside "
        "the reproduced 95% Student-t interval; missing = the paper has it, the run does not"
    )

    # with no experiments, the paper's own numbers, not an empty table of reproduced ones
    parts = [comment(fmt, head), *([grid(header, body, fmt)] if body else []), grid(fh, fb, fmt, notes=notes)]
    if data.every_checkpoint:
        eh = [
            "agent",
            "metric",
            "checkpoint",
            "reproduced [95% t]",
            "paper (every checkpoint)",
            "paper outside",
        ]
        eb = [
            [
                x.agent,
                x.metric,
                str(x.checkpoint),
                _est(x.reproduced),
                f"{x.published:.3f}",
                {True: "outside", False: "inside", None: "–"}[x.outside],
            ]
            for x in data.every_checkpoint
        ]
        parts.append(grid(eh, eb, fmt, notes=["the paper states these values at every checkpoint"]))
    text = "\n\n".join(parts) + "\n"
    return html_page(data.figure, text) if fmt == "html" else text


def plot_figure(data: FigureData, out_dir: Path) -> list[Path]:
    """The figure as the paper draws it: draw rate per checkpoint (Figure 5 adds tokens per move),
    mean over runs with Student-t error bars, the single-call reference dashed, the paper's final
    means as stars."""
    from matplotlib.figure import Figure

    from ..render.plot_style import save

    if not data.experiments:
        raise UserError(f"nothing to plot: no experiments of {data.figure} in the store")
    panels = [("draw_rate", "draw rate")] + (
        [("tokens_per_move", "output tokens per move")] if data.figure == "fig5" else []
    )
    fig = Figure(figsize=(6 * len(panels), 4), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    finals = {(f.agent, f.metric): f.published for f in data.finals if f.published is not None}
    for ax, (metric, ylabel) in zip(axes, panels):
        for e in data.experiments:
            label = _label(e)
            pts = [c for c in e.checkpoints if c.means.metrics[metric].rate is not None]
            if not pts:
                continue
            xs = [c.learning_games for c in pts]
            ys, err = error_bars([c.means.metrics[metric] for c in pts])
            line = ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label)
            if (label, metric) in finals:
                ax.plot(
                    [xs[-1]],
                    [finals[(label, metric)]],
                    marker="*",
                    markersize=12,
                    linestyle="none",
                    color=line[0].get_color(),
                    label=f"{label} (paper, final)",
                )
            ref = e.reference
            if ref and (mean := ref.means.metrics[metric].rate) is not None:
                ax.axhline(mean, linestyle="--", color="grey", label="single-call reference")
        ax.set_xlabel("learning games")
        ax.set_ylabel(ylabel)
        if metric == "draw_rate":
            ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize="small")
    fig.suptitle(f"{data.figure}: {data.title}", fontsize="small")
    return [save(fig, out_dir, data.figure)]
