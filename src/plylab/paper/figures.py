"""Figures 4-6 (REAPER learning curves): checkpoint estimates from analysis.learning, the paper's
printed values beside them, and the plots (matplotlib PNG + SVG).

The seed prints final means and one-sided Welch p-values (003 l.182, l.188-190) but no
intervals for them, so the mark here is `outside` where the paper's mean lies outside the
reproduced 95% Student-t interval.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..analysis.learning import SETTING, learning_data, section_reference
from ..analysis.stats import estimate_text
from ..errors import UserError
from ..harness.store import Store
from ..render.grid import comment, grid, html_page
from .protocols import get_protocol
from .published import published

METRICS = (("draw_rate", "draw rate"), ("optimality", "optimality"), ("tokens_per_move", "tokens/move"))


def _est(e: dict[str, Any] | None, digits: int = 3) -> str:
    if not e or e.get("mean") is None:
        return "missing"
    return estimate_text(e["mean"], e.get("low"), e.get("high"), e.get("n"), lambda x: f"{x:.{digits}f}")


def figure_data(store_path: Path | None, name: str, runs: list[str] | None = None) -> dict[str, Any]:
    """The figure as data: experiments' checkpoints, finals and checkpoint marks beside the paper's
    (the paper's numbers alone without a store)."""
    p = get_protocol(name)
    pub = published(name)
    data: dict[str, Any] = {"experiments": [], "comparisons": []}
    if store_path is not None:
        store = Store(store_path, create=False)
        try:
            data = learning_data(store)
            if p.reference_from:
                _seed_reference(store, p.reference_from, data["experiments"])
        finally:
            store.close()
    prefix = f"paper/{name}/"
    prefixes = [r.rstrip("/") + "/" for r in runs] if runs else [prefix]
    # agents that are another figure's experiment (Fig. 6's state-mode ones are Fig. 4's)
    shared = {(f"paper/{a.same_as}/", a.label) for a in p.agents if a.same_as and not runs}
    exps = [
        e
        for e in data["experiments"]
        if e["name"] in (runs or [])
        or e["name"].startswith(tuple(prefixes))
        or any(e["name"].startswith(pre) and e["name"].endswith("/" + lab) for pre, lab in shared)
    ]
    names = {e["name"] for e in exps}
    finals = []
    for e in exps:
        label = e["name"].rsplit("/", 1)[-1]
        last = e["checkpoints"][-1] if e["checkpoints"] else None
        paper = pub.get("final", {}).get(label, {})
        for metric, _ in METRICS:
            mine = last[metric] if last and last[metric].get("mean") is not None else None
            if metric not in paper and mine is None:
                continue
            pv = paper.get(metric)
            outside = None
            if pv is not None and mine and mine.get("low") is not None and (mine.get("n") or 0) >= 2:
                outside = not (mine["low"] <= pv <= mine["high"])
            finals.append(
                {
                    "experiment": e["name"],
                    "agent": label,
                    "metric": metric,
                    "reproduced": mine,
                    "checkpoint": last["checkpoint"] if last else None,
                    "published": pv,
                    "outside": outside,
                }
            )
    # values the paper states hold at every checkpoint (Fig. 5: Original's draw rate is 0, l.188)
    every = []
    for e in exps:
        label = e["name"].rsplit("/", 1)[-1]
        for metric, pv in pub.get("all_checkpoints", {}).get(label, {}).items():
            for cp in e["checkpoints"]:
                mine = cp[metric] if cp[metric].get("mean") is not None else None
                outside = None
                if mine and mine.get("low") is not None and (mine.get("n") or 0) >= 2:  # one run: no interval
                    outside = not (mine["low"] <= pv <= mine["high"])
                every.append(
                    {
                        "agent": label,
                        "metric": metric,
                        "checkpoint": cp["checkpoint"],
                        "reproduced": mine,
                        "published": pv,
                        "outside": outside,
                    }
                )
    for label, metrics in pub.get("all_checkpoints", {}).items():
        if not any(x["agent"] == label for x in every):
            every += [
                {"agent": label, "metric": m, "checkpoint": "every", "reproduced": None, "published": pv}
                | {"outside": None}
                for m, pv in metrics.items()
            ]
    # agents of the protocol the store has no experiment for: the paper's numbers, shown as missing
    have = {e["name"].rsplit("/", 1)[-1] for e in exps}
    for agent in p.agents:
        if agent.label not in have:
            for metric, pv in pub.get("final", {}).get(agent.label, {}).items():
                finals.append(
                    {
                        "experiment": None,
                        "agent": agent.label,
                        "metric": metric,
                        "reproduced": None,
                        "checkpoint": None,
                        "published": pv,
                        "outside": None,
                    }
                )
    tests = [
        {**t, "better": t["better"].rsplit("/", 1)[-1], "worse": t["worse"].rsplit("/", 1)[-1]}
        for t in data["comparisons"]
        if t["better"] in names and t["worse"] in names and t["mean_better"] != t["mean_worse"]
    ]
    return {
        "figure": name,
        "title": p.title,
        "cite": list(p.cite),
        "protocol": p.describe(),
        "experiments": exps,
        "finals": finals,
        "every_checkpoint": every,
        "welch": tests,
        "published_welch": pub.get("welch", []),
        "published_model": pub.get("model"),
        "published_text": pub.get("text"),
    }


def _seed_reference(store: Store, table: str, experiments: list[dict[str, Any]]) -> None:
    """The figure's dashed line as the seed names it: the model's single-call run of `table`
    (`paper/<table>/<model>`, same game, formulation and opponent), in place of the experiment's
    own reference phases; where the store has none, the phases stay, marked as not the seed's."""
    for e in experiments:
        parts = e["name"].split("/")
        if len(parts) < 4 or parts[0] != "paper":
            continue
        found = section_reference(store, f"paper/{table}/{parts[2]}", tuple(e[k] for k in SETTING))
        if found is not None:
            e["reference"] = found
        elif e["reference"] is not None:
            e["reference"]["deviation"] = (
                f"not the seed's Section 3 player (003 l.176): run `plylab paper run {table}` for it"
            )


def _grid(data: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    header = ["experiment", "checkpoint", "learning games", "runs"] + [m[1] + " [t]" for m in METRICS]
    body = []
    for e in data["experiments"]:
        points = [(str(c["checkpoint"]), str(c["learning_games"]), c) for c in e["checkpoints"]]
        if e["reference"]:
            ref = e["reference"]
            where = " — not Section 3's" if ref.get("deviation") else ""
            points.append((f"reference ({ref['player']}, {ref['source']}{where})", "–", ref))
        for cp, lg, c in points:
            body.append(
                [e["name"], cp, lg, str(c["runs"])]
                + [_est(c[m], 1 if m == "tokens_per_move" else 3) for m, _ in METRICS]
            )
    return header, body


def render_figure(data: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(data, indent=2)
    header, body = _grid(data)
    head = [f"{data['figure']}: {data['title']}", "protocol: " + "; ".join(data["cite"])]
    if not data["experiments"]:
        head.append(f"no experiments yet: run `plylab paper run {data['figure']} --model M`")
    fh = [
        "agent",
        "metric",
        "final checkpoint [95% t]",
        f"paper ({data['published_model']})",
        "paper outside interval",
    ]
    fb = [
        [
            f["agent"],
            f["metric"],
            _est(f["reproduced"], 1 if f["metric"] == "tokens_per_move" else 3),
            "–" if f["published"] is None else f"{f['published']:.3f}",
            {True: "outside", False: "inside", None: "–"}[f["outside"]],
        ]
        for f in data["finals"]
    ]
    notes = [
        f"Welch (this run) {t['metric']}: {t['better']} > {t['worse']}, one-sided p = "
        f"{'–' if t['p_value'] is None else format(t['p_value'], '.3g')}"
        for t in data["welch"]
    ]
    notes += [
        f"Welch (paper) {t['metric']}: {t['better']} > {t['worse']}, one-sided p = {t['p_value']}"
        for t in data["published_welch"]
    ]
    if data.get("published_text"):
        notes.append(f"paper: {data['published_text']}")
    notes.append(
        "the paper prints final means without intervals: 'outside' = the paper's mean lies outside "
        "the reproduced 95% Student-t interval; missing = the paper has it, the run does not"
    )

    # with no experiments, the paper's own numbers, not an empty table of reproduced ones
    parts = [comment(fmt, head), *([grid(header, body, fmt)] if body else []), grid(fh, fb, fmt, notes=notes)]
    if data.get("every_checkpoint"):
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
                x["agent"],
                x["metric"],
                str(x["checkpoint"]),
                _est(x["reproduced"]),
                f"{x['published']:.3f}",
                {True: "outside", False: "inside", None: "–"}[x["outside"]],
            ]
            for x in data["every_checkpoint"]
        ]
        parts.append(grid(eh, eb, fmt, notes=["the paper states these values at every checkpoint"]))
    text = "\n\n".join(parts) + "\n"
    return html_page(data["figure"], text) if fmt == "html" else text


def plot_figure(data: dict[str, Any], out_dir: Path) -> list[Path]:
    """The figure as the paper draws it: draw rate per checkpoint (Figure 5 adds tokens per move),
    mean over runs with Student-t error bars, the single-call reference dashed, the paper's final
    means as stars."""
    from matplotlib.figure import Figure

    from ..render.plots import save

    if not data["experiments"]:
        raise UserError(f"nothing to plot: no experiments of {data['figure']} in the store")
    panels = [("draw_rate", "draw rate")] + (
        [("tokens_per_move", "output tokens per move")] if data["figure"] == "fig5" else []
    )
    fig = Figure(figsize=(6 * len(panels), 4), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    finals = {(f["agent"], f["metric"]): f["published"] for f in data["finals"] if f["published"] is not None}
    for ax, (metric, ylabel) in zip(axes, panels):
        for e in data["experiments"]:
            label = e["name"].rsplit("/", 1)[-1]
            pts = [c for c in e["checkpoints"] if c[metric]["mean"] is not None]
            if not pts:
                continue
            xs = [c["learning_games"] for c in pts]
            ys = [c[metric]["mean"] for c in pts]
            err = [
                [y - c[metric]["low"] for y, c in zip(ys, pts)],
                [c[metric]["high"] - y for y, c in zip(ys, pts)],
            ]
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
            ref = e["reference"]
            if ref and ref[metric]["mean"] is not None:
                ax.axhline(ref[metric]["mean"], linestyle="--", color="grey", label="single-call reference")
        ax.set_xlabel("learning games")
        ax.set_ylabel(ylabel)
        if metric == "draw_rate":
            ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize="small")
    fig.suptitle(f"{data['figure']}: {data['title']}", fontsize="small")
    return [save(fig, out_dir, data["figure"])]
