"""Figures like the paper's 5 and 6: knowledge curves against the ceiling, and accusation delays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import UserError


def write_plots(data: dict[str, Any], directory: str | Path) -> list[Path]:
    """Write clue_knowledge.png and clue_delays.png under `directory`; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(directory)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create plot directory '{out}': {exc.strerror or exc}") from None
    groups = data["groups"]
    if not groups:
        raise UserError(f"no Clue games in {data['store']} to plot")
    paths = []

    fig, ax = plt.subplots(figsize=(8, 5))
    for i, g in enumerate(groups):
        pts = g["knowledge_curve"]["rounds"]
        rounds = [p["round"] for p in pts]
        color = f"C{i % 10}"
        label = f"{g['condition']} {g['spec']}"
        ax.plot(rounds, [p["stated"] for p in pts], color=color, marker="o", ms=3, label=f"{label} (stated)")
        ax.plot(rounds, [p["oracle"] for p in pts], color=color, ls="--", label=f"{label} (oracle)")
    ax.axhline(groups[0]["knowledge_curve"]["ceiling"], color="grey", ls=":", label="ceiling")
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

    fig, ax = plt.subplots(figsize=(8, 5))
    labels, kinds = (
        [],
        [
            ("from_entailment", "oracle entails solution -> accusation"),
            ("from_solution_suggested", "solution suggested -> right accusation"),
        ],
    )
    width = 0.38
    for i, g in enumerate(groups):
        labels.append(f"{g['condition']}\n{g['spec']}")
        for j, (key, _) in enumerate(kinds):
            mean = g["accusation_delay"][key]["mean"]
            ax.bar(i + (j - 0.5) * width, mean or 0, width, color=f"C{j}")
        ready = g["accusation_delay"]["ready"]
        if ready and ready["gap"]["mean"] is not None:
            ax.plot(i, ready["gap"]["mean"], "k^")
    for j, (_, text) in enumerate(kinds):
        ax.bar(0, 0, 0, color=f"C{j}", label=text)
    ax.plot([], [], "k^", label="matrix ready -> accusation")
    ax.set_xticks(range(len(labels)), labels, fontsize=7)
    paths.append(_finish(fig, ax, "turns (mean)", "Accusation delay", out / "clue_delays.png"))
    return paths


def _finish(fig: Any, ax: Any, ylabel: str, title: str, path: Path) -> Path:
    """Label, lay out, save and close one figure."""
    import matplotlib.pyplot as plt

    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
