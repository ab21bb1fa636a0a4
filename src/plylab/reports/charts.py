"""The report's figures, each written as PNG (for the page) and SVG (for papers).

Built on matplotlib's object API (`Figure`, no pyplot), so making plots never touches global
backend state of the process that asked for the report.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..analysis.ratings import ANCHOR_ELO, Rating
from ..analysis.results import MatchupRow
from ..players.canonical import printed_run_name
from ..render.plot_style import save

# the site's outcome colours (static/site.css)
OUTCOME_COLORS = {"wins": "#1a7f37", "draws": "#9a6700", "losses": "#cf222e", "failures": "#24292f"}
ROW_HEIGHT = 0.34  # inches per plotted row
Item = TypeVar("Item")


def _panels(
    groups: dict[str, list[Item]], width: float, draw: Callable[[Axes, str, list[Item]], None]
) -> Figure:
    """One horizontal panel per group, each as tall as its number of rows."""
    sizes = [max(len(v), 1) for v in groups.values()]
    fig = Figure(figsize=(width, 0.9 * len(sizes) + ROW_HEIGHT * sum(sizes)), layout="constrained")
    axes = fig.subplots(len(sizes), 1, squeeze=False, gridspec_kw={"height_ratios": sizes})[:, 0]
    for ax, (title, items) in zip(axes, groups.items()):
        draw(ax, title, items)
        ax.set_title(title)  # left, bold: render/plot_style.py
        ax.grid(axis="y", visible=False)
    return fig


def _label(text: str, width: int = 34) -> str:
    """Long player specs (model names, URLs) broken after commas so the axes keep their room."""
    if len(text) <= width:
        return text
    return ",\n".join(text.split(","))


def _by_game(rows: list[MatchupRow]) -> dict[str, list[MatchupRow]]:
    out: dict[str, list[MatchupRow]] = {}
    for r in rows:
        out.setdefault(r.game, []).append(r)
    return out


def _names(rows: list[MatchupRow], with_form: bool = False) -> list[str]:
    """Each row's matchup label; with the run's name where the store holds the same matchup from two
    runs, so two points never wear one label."""

    def base(r: MatchupRow) -> str:
        return f"{r.player} vs {r.opponent}" + (f" · {r.formulation}" if with_form else "")

    def key(r: MatchupRow) -> tuple[str, ...]:
        return (r.game, r.formulation, r.player, r.opponent)

    runs: dict[tuple[str, ...], set[str]] = {}
    for r in rows:
        runs.setdefault(key(r), set()).add(r.run)
    return [base(r) + (f" · run {printed_run_name(r.run)}" if len(runs[key(r)]) > 1 else "") for r in rows]


def optimality(rows: list[MatchupRow], out_dir: Path) -> Path | None:
    """Optimality rate per player vs opponent, one colour per formulation: Wilson (thick) and
    game-clustered (thin) 95% intervals, so the gap between the two is visible."""
    rows = [r for r in rows if r.optimality.rate is not None]
    if not rows:
        return None
    forms = sorted({r.formulation for r in rows})
    colors = {f: f"C{k % 10}" for k, f in enumerate(forms)}

    def draw(ax: Axes, game: str, items: list[MatchupRow]) -> None:
        named = _names(items)
        labels = sorted(set(named))
        offset = {f: (k - (len(forms) - 1) / 2) * 0.8 / max(len(forms), 1) for k, f in enumerate(forms)}
        for r, name in zip(items, named):
            o = r.optimality
            y = labels.index(name) + offset[r.formulation]
            c = colors[r.formulation]
            if o.cluster_low is not None and o.cluster_high is not None:
                ax.hlines(y, o.cluster_low, o.cluster_high, color=c, lw=1, alpha=0.6)
            assert o.rate is not None and o.low is not None and o.high is not None  # rated rows only
            ax.hlines(y, o.low, o.high, color=c, lw=3.5, alpha=0.9)
            ax.plot(o.rate, y, "o", color="white", mec=c, mew=1.8, ms=6)
        ax.set_yticks(range(len(labels)), [_label(t) for t in labels], fontsize=8)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        ax.set_xlim(-0.02, 1.02)
        ax.set_xlabel("share of optimal moves (informative positions)", fontsize=8)

    fig = _panels(_by_game(rows), 8.0, draw)
    handles = [Line2D([], [], color=colors[f], lw=3, marker="o", mfc="white", mew=1.8) for f in forms]
    fig.legend(handles, forms, title="formulation", loc="outside right upper", fontsize=8)
    return save(fig, out_dir, "optimality")


def outcomes(rows: list[MatchupRow], out_dir: Path) -> Path | None:
    """Share of wins, draws, losses and failures per matchup, grouped by opponent."""
    if not rows:
        return None

    def draw(ax: Axes, game: str, items: list[MatchupRow]) -> None:
        items = sorted(items, key=lambda r: (r.opponent, r.player, r.formulation, r.run))
        labels = _names(items, with_form=True)
        left = [0.0] * len(items)
        for key, color in OUTCOME_COLORS.items():
            counts = [r.outcome_counts[key] for r in items]
            share = [k / r.games for k, r in zip(counts, items)]
            bars = ax.barh(range(len(items)), share, left=left, color=color, label=key, height=0.7)
            ax.bar_label(
                bars,
                [str(k) if k and s > 0.06 else "" for k, s in zip(counts, share)],
                label_type="center",
                color="white",
                fontsize=7,
            )
            left = [a + b for a, b in zip(left, share)]
        ax.set_yticks(range(len(items)), [_label(t) for t in labels], fontsize=8)
        ax.set_ylim(len(items) - 0.5, -0.5)
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of games (player's side)", fontsize=8)

    fig = _panels(_by_game(rows), 8.0, draw)
    handles = [Patch(color=c) for c in OUTCOME_COLORS.values()]
    fig.legend(handles, list(OUTCOME_COLORS), loc="outside right upper", fontsize=8)
    return save(fig, out_dir, "outcomes")


def ratings(table: dict[str, list[Rating]], out_dir: Path) -> Path | None:
    """Bradley-Terry ratings with bootstrap intervals; the dashed line is the `random` anchor."""
    table = {k: [r for r in v if r.elo is not None] for k, v in table.items()}  # only what games identify
    table = {k: v for k, v in table.items() if v}
    if not table:
        return None

    def draw(ax: Axes, scope: str, items: list[Rating]) -> None:
        for y, r in enumerate(items):
            assert r.elo is not None and r.low is not None and r.high is not None
            ax.hlines(y, r.low, r.high, color="C0", lw=3, alpha=0.8)
            ax.plot(r.elo, y, "o", color="white", mec="C0", mew=1.8, ms=6)
        ax.axvline(ANCHOR_ELO, color="0.5", ls="--", lw=1)
        ax.set_yticks(range(len(items)), [_label(r.player) for r in items], fontsize=8)
        ax.set_ylim(len(items) - 0.5, -0.5)
        ax.set_xlabel("Elo scale (random, or the rated players' mean, = 1000)", fontsize=8)

    return save(_panels(table, 7.0, draw), out_dir, "ratings")
