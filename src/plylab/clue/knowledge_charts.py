"""Figures like the paper's 5 and 6: knowledge curves against the ceiling, and accusation delays."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from .metrics import ClueReport, Delays, PlayerMetrics

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def has_delays(groups: Sequence[PlayerMetrics]) -> bool:
    """Whether any group has an accusation delay to draw (else the delay figure would be empty)."""
    for g in groups:
        d = g.accusation_delay
        if d.from_entailment.mean is not None or d.from_solution_suggested.mean is not None:
            return True
        if d.ready and d.ready.gap.mean is not None:
            return True
    return False


def write_plots(data: ClueReport, directory: str | Path) -> list[Path]:
    """Write clue_knowledge.png, and clue_delays.png when some game has a delay, under `directory`;
    returns their paths (an empty figure is never written: `has_delays` says why one is missing)."""
    from ..render.plot_style import styled

    with styled():
        return _write_plots(data, directory)


def _write_plots(data: ClueReport, directory: str | Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(directory)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create plot directory '{out}': {exc.strerror or exc}") from None
    groups = data.groups
    if not groups:
        raise UserError(f"no Clue games in {data.store} to plot")
    paths = []

    fig, ax = plt.subplots(figsize=(8, 5))
    for i, g in enumerate(groups):
        pts = g.knowledge_curve.rounds
        rounds = [p.round for p in pts]
        color = f"C{i % 10}"
        label = f"{g.condition} {g.spec}"
        ax.plot(rounds, [p.stated for p in pts], color=color, marker="o", ms=3, label=f"{label} (stated)")
        ax.plot(rounds, [p.oracle for p in pts], color=color, ls="--", label=f"{label} (oracle)")
    ax.axhline(groups[0].knowledge_curve.ceiling, color="grey", ls=":", label="ceiling")
    ax.set_xlabel("round")
    paths.append(
        _finish(
            fig,
            ax,
            "cards whose holder is known",
            "Knowledge accumulation per round",
            out / "clue_knowledge.png",
        )
    )

    if not has_delays(groups):
        return paths
    fig, ax = plt.subplots(figsize=(8, 5))
    labels: list[str] = []
    kinds: list[tuple[Callable[[PlayerMetrics], Delays], str]] = [
        (lambda g: g.accusation_delay.from_entailment, "oracle entails solution -> accusation"),
        (lambda g: g.accusation_delay.from_solution_suggested, "solution suggested -> right accusation"),
    ]
    width = 0.38
    for i, g in enumerate(groups):
        labels.append(f"{g.condition}\n{g.spec}")
        for j, (delays, _) in enumerate(kinds):
            mean = delays(g).mean
            x = i + (j - 0.5) * width
            ax.bar(x, mean or 0, width, color=f"C{j + 2}")
            # the value over each bar, so a delay of 0 turns (an oracle accuses at once) is seen
            ax.text(
                x, mean or 0, "–" if mean is None else f"{mean:.1f}", ha="center", va="bottom", fontsize=7
            )
        ready = g.accusation_delay.ready
        if ready and ready.gap.mean is not None:
            ax.plot(i, ready.gap.mean, "k^")
    for j, (_, text) in enumerate(kinds):
        ax.bar(0, 0, 0, color=f"C{j + 2}", label=text)
    ax.plot([], [], "k^", label="matrix ready -> accusation")
    ax.set_xticks(range(len(labels)), labels, fontsize=7)
    paths.append(_finish(fig, ax, "turns (mean)", "Accusation delay", out / "clue_delays.png"))
    return paths


def _finish(fig: Figure, ax: Axes, ylabel: str, title: str, path: Path) -> Path:
    """Label, lay out, save and close one figure."""
    import matplotlib.pyplot as plt

    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
