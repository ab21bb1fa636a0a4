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
import sqlite3
import textwrap
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..harness.store import Store
from ..players.canonical import canonical_spec, printed_run_name
from ..render.plots import styled
from .metrics import matchup_rows
from .stats import estimate_text, student_t, welch_one_sided, wilson
from .tables import FORMATS, format_grid

METRICS = ("draw_rate", "win_rate", "optimality", "tokens_per_move", "failure_rate")
TESTED = ("draw_rate", "win_rate", "optimality")
SETTING = ("game", "formulation", "opponent")


def _values(row: dict[str, Any]) -> dict[str, float | None]:
    """One phase's metric values (from its matchup row)."""
    return {
        "draw_rate": row["draw_rate"]["rate"],
        "win_rate": row["win_rate"]["rate"],
        "optimality": row["optimality"]["rate"],
        "tokens_per_move": row["tokens_per_move"]["mean"],
        "failure_rate": row["failures"] / row["games"] if row["games"] else None,
    }


def _pooled_recall(per_run: list[dict[str, Any]]) -> dict[str, Any]:
    """D.4.1's retrieval success over the checkpoint's runs [Wilson]; no rate where no state recurred."""
    hits = sum(v.get("recall", (0, 0))[0] for v in per_run)
    n = sum(v.get("recall", (0, 0))[1] for v in per_run)
    return wilson(hits, n).as_dict()


def _estimates(per_run: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"runs": len(per_run)}
    for m in METRICS:
        e = student_t([v[m] for v in per_run if v[m] is not None])
        out[m] = {"mean": e.rate, "low": e.low, "high": e.high, "n": e.n}
    return out


def _phase_rows(store: Store) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(plan, metric values) of every learning phase that has games."""
    out = []
    for r in store.runs():
        if r.kind != "learn":
            continue
        plan = json.loads(r.plan)
        rows = matchup_rows(store, r.name)
        if rows:
            out.append((plan, {**_values(rows[0]), "recall": _recall(store, r.id)}))
    return out


def _recall(store: Store, run_id: int) -> tuple[int, int]:
    """(retrieved, in memory): moves in a stored state, and those whose retrieval found it (D.4.1)."""
    hits = n = 0
    for note in store.player_notes(run_id, "recall"):
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


def _updates(store: Store, items: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """Reflections and rule extractions per run, from each run memory's update log."""
    folders: dict[int, Path] = {}
    for plan, _ in items:
        if plan.get("memory"):
            folders.setdefault(plan["run"], (store.path.parent / plan["memory"]).parent)
    totals: dict[str, Any] = {k: {"total": 0, "failed": defaultdict(int)} for k in ("reflect", "rules")}
    runs = []
    for run, folder in sorted(folders.items()):
        path = _memory_file(folder)
        entry: dict[str, Any] = {"run": run, "memory": str(path) if path else None}
        for k in totals:
            entry[k] = {"total": 0, "failed": {}}
        if path is not None:
            try:
                with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as conn:
                    rows = conn.execute(
                        "SELECT kind, failure, COUNT(*) FROM updates GROUP BY kind, failure"
                    ).fetchall()
            except sqlite3.DatabaseError:
                rows = []
            for kind, failure, count in rows:
                if kind not in totals:
                    continue
                entry[kind]["total"] += count
                totals[kind]["total"] += count
                if failure:
                    entry[kind]["failed"][failure] = entry[kind]["failed"].get(failure, 0) + count
                    totals[kind]["failed"][failure] += count
        runs.append(entry)
    for entry in runs:  # cut off at update_max_tokens: counted apart, per run (issue 19)
        for k in totals:
            entry[k]["truncated"] = entry[k]["failed"].get("truncated", 0)
    return {
        **{
            k: {
                "total": v["total"],
                "failed": dict(v["failed"]),
                "truncated": v["failed"].get("truncated", 0),
            }
            for k, v in totals.items()
        },
        "runs": runs,
    }


def _play_references(store: Store, setting: tuple[str, ...]) -> list[tuple[str, dict[str, float | None]]]:
    return _play_references_in(store, [r.name for r in store.runs() if r.kind != "learn"], setting)


def section_reference(store: Store, run: str, setting: tuple[str, ...]) -> dict[str, Any] | None:
    """The `llm` player's row of `run` in `setting` as a reference (its one run's values), or None."""
    if run not in {r.name for r in store.runs()}:
        return None
    found = [v for _, v in _play_references_in(store, [run], setting)]
    if not found:
        return None
    return {"player": "llm", "source": run, **_estimates(found)}


def _play_references_in(
    store: Store, runs: list[str], setting: tuple[str, ...]
) -> list[tuple[str, dict[str, float | None]]]:
    setting = (*setting[:-1], canonical_spec(setting[-1]))  # rows name the opponent canonically
    out = []
    for name in runs:
        for row in matchup_rows(store, name):
            if tuple(row[k] for k in SETTING) == setting and re.match(r"llm(:|$)", row["player"]):
                out.append((name, _values(row)))
    return out


def _shown(ident: dict[str, Any]) -> dict[str, Any]:
    """An experiment's identity as printed: its specs canonical, in `shown_name` too (`name` stays
    the stored one its phases' runs are made from, by which the paper's figures find it)."""
    return {
        **ident,
        "shown_name": printed_run_name(ident["name"]),
        **{k: canonical_spec(ident[k]) for k in ("agent", "opponent") if ident.get(k)},
    }


def learning_data(store: Store, run: str | None = None) -> dict[str, Any]:
    """Experiments (per agent, per checkpoint estimates, reference) and final-checkpoint comparisons."""
    phases = _phase_rows(store)
    by_exp: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = defaultdict(list)
    for plan, values in phases:
        by_exp[plan["learn"]["name"]].append((plan, values))
    if run is not None:
        # an experiment is named as printed (specs canonical) or as stored
        run = next((k for k, v in by_exp.items() if run in (k, _shown(v[0][0]["learn"])["shown_name"])), run)
        if run not in by_exp:
            raise UserError(
                f"no learning experiment '{run}' in {store.path}; experiments here: "
                f"{', '.join(_shown(v[0][0]['learn'])['shown_name'] for v in by_exp.values()) or 'none (run `plylab learn` first)'}"
            )
        by_exp = {run: by_exp[run]}
    experiments = []
    for items in by_exp.values():
        stored = items[0][0]["learn"]
        ident = _shown(stored)
        evals: dict[int, list[dict[str, Any]]] = defaultdict(list)
        refs: list[dict[str, Any]] = []
        for plan, values in items:
            if plan["phase"] == "eval":
                evals[plan["index"]].append(values)
            elif plan["phase"] == "reference":
                refs.append(values)
        reference = None
        if refs:
            player = canonical_spec(next(p["player"] for p, _ in items if p["phase"] == "reference"))
            reference = {"player": player, "source": "reference phases", **_estimates(refs)}
        else:
            found = _play_references(store, tuple(stored[k] for k in SETTING))
            if found:
                reference = {
                    "player": "llm",
                    "source": ", ".join(n for n, _ in found),
                    **_estimates([v for _, v in found]),
                }
        experiments.append(
            {
                **ident,
                "checkpoints": [
                    {
                        "checkpoint": c,
                        "learning_games": c * ident["learn_games"],
                        **_estimates(evals[c]),
                        "retrieval_success": _pooled_recall(evals[c]),
                    }
                    for c in sorted(evals)
                ],
                "updates": _updates(store, items),
                "reference": reference,
                "_final": evals[max(evals)] if evals else [],
            }
        )
    comparisons = _comparisons(experiments)
    for e in experiments:
        del e["_final"]
    return {"experiments": experiments, "comparisons": comparisons}


def _comparisons(experiments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for a, b in itertools.combinations(experiments, 2):
        if any(a[k] != b[k] for k in SETTING) or not a["_final"] or not b["_final"]:
            continue
        for metric in TESTED:
            xa = [v[metric] for v in a["_final"] if v[metric] is not None]
            xb = [v[metric] for v in b["_final"] if v[metric] is not None]
            if not xa or not xb:
                continue
            hi, lo, xhi, xlo = (a, b, xa, xb) if sum(xa) / len(xa) >= sum(xb) / len(xb) else (b, a, xb, xa)
            out.append(
                {
                    "metric": metric,
                    "better": hi["shown_name"],
                    "worse": lo["shown_name"],
                    "mean_better": sum(xhi) / len(xhi),
                    "mean_worse": sum(xlo) / len(xlo),
                    "runs": [len(xhi), len(xlo)],
                    "p_value": welch_one_sided(xhi, xlo) if len(set(xhi)) + len(set(xlo)) > 2 else None,
                }
            )
    return out


# -- rendering -------------------------------------------------------------------------------


def _cell(est: dict[str, Any] | None, digits: int = 3) -> str:
    if not est or est.get("mean") is None:
        return "–"
    return estimate_text(est["mean"], est["low"], est["high"], est.get("n"), lambda x: f"{x:.{digits}f}")


def _grid(data: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
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
    for e in data["experiments"]:
        points = [(str(c["checkpoint"]), c) for c in e["checkpoints"]]
        if e["reference"]:
            points.append((f"reference ({e['reference']['player']})", e["reference"]))
        for label, c in points:
            body.append(
                [
                    e["agent"],
                    label,
                    str(c["runs"]),
                    _cell(c["draw_rate"]),
                    _cell(c["win_rate"]),
                    _cell(c["optimality"]),
                    _cell(c["tokens_per_move"], 1),
                    _cell(c["failure_rate"]),
                    _recall_cell(c.get("retrieval_success")),
                ]
            )
    return header, body


def _recall_cell(est: dict[str, Any] | None) -> str:
    if not est or est.get("rate") is None:
        return "–"
    text = estimate_text(est["rate"], est["low"], est["high"], est["n"], lambda x: f"{x:.3f}")
    return text if text.endswith(")") else f"{text} (n={est['n']})"


def _failed(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"


def _update_notes(data: dict[str, Any]) -> list[str]:
    """Per experiment and run: learning updates made and how many failed, by kind."""
    out = []
    for e in data["experiments"]:
        u = e.get("updates")
        if not u or not u["runs"]:
            continue
        per_run = "; ".join(
            f"run {r['run']}: {r['reflect']['total']} reflections ({_failed(r['reflect']['failed'])} failed, "
            f"{r['reflect']['truncated']} truncated), {r['rules']['total']} rule extractions "
            f"({_failed(r['rules']['failed'])} failed, {r['rules']['truncated']} truncated)"
            for r in u["runs"]
        )
        out.append(
            f"{e['shown_name']} updates: {u['reflect']['total']} reflections, failed: {_failed(u['reflect']['failed'])}; "
            f"{u['rules']['total']} rule extractions, failed: {_failed(u['rules']['failed'])} — {per_run}"
        )
    return out


def _tests(data: dict[str, Any]) -> list[str]:
    return [
        f"{t['metric']}: {t['better']} ({t['mean_better']:.3f}) > {t['worse']} ({t['mean_worse']:.3f}), "
        f"one-sided Welch p = {'–' if t['p_value'] is None else format(t['p_value'], '.3g')}"
        for t in data["comparisons"]
    ]


def learning_report(store_path: Path, run: str | None, fmt: str) -> str:
    """The learning report as json, markdown, csv or a terminal table."""
    store = Store(store_path, create=False)
    try:
        data = learning_data(store, run)
        if not data["experiments"]:
            played = len(store.runs())
            raise UserError(
                f"no learning runs in {store_path} ({played} other run{'s' * (played != 1)}: see `plylab "
                "report`); `plylab learn` makes one"
            )
    finally:
        store.close()
    if fmt == "json":
        return json.dumps(data, indent=2)
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
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for e in data["experiments"]:
        groups[tuple(e[k] for k in SETTING)].append(e)
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


def _curves(exps: list[dict[str, Any]], metric: str, title: str, ylabel: str) -> Any:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(6, 4), layout="constrained")
    ax = fig.subplots()
    agents = [e["agent"] for e in exps]
    refs: dict[tuple[str, float], str | None] = {}  # one dashed line per distinct reference
    for i, e in enumerate(exps):
        pts = [c for c in e["checkpoints"] if c[metric]["mean"] is not None]
        if not pts:
            continue
        dodge = (i - (len(exps) - 1) / 2) * 0.04  # keeps overlapping error bars apart
        ys = [c[metric]["mean"] for c in pts]
        err = [
            [y - c[metric]["low"] for y, c in zip(ys, pts)],
            [c[metric]["high"] - y for y, c in zip(ys, pts)],
        ]
        label = _wrap(e["agent"] if agents.count(e["agent"]) == 1 else e["shown_name"])
        line = ax.errorbar(
            [c["checkpoint"] + dodge for c in pts], ys, yerr=err, marker="o", capsize=3, label=label
        )
        ref = e["reference"]
        if ref and ref[metric]["mean"] is not None:
            refs.setdefault((ref["player"], ref[metric]["mean"]), line[0].get_color())
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
