"""Which of the paper's pivot tables to draw, and over which rows, for the site and for LaTeX.

The pivots (players x formulations, players x opponents) hold one cell per setting, so rows from
different runs that share a setting cannot share a table: then each run gets its own.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ..analysis.results import MatchupRow
from ..players.canonical import printed_run_name
from .truth import ground_truth

# (table, pivot columns, caption), in the paper's order: Tables 4/8/10, 6/7, recognition, tokens.
PIVOTS = (
    ("optimality", "formulation", "Optimality rate by formulation, 95% Wilson interval"),
    ("outcomes", "opponent", "Wins, draws, losses and failures (W D L F) by opponent"),
    (
        "recognition",
        "formulation",
        "Recognition rate (the reasoning trace names the game), 95% Wilson interval",
    ),
    ("tokens", "formulation", "Output tokens per move, mean ± 95% half-width"),
)
MODEL_ONLY = {"recognition", "tokens"}


@dataclass(frozen=True)
class PaperTable:
    table: str
    by: str
    caption: str
    scope: str  # "game" or "game, run R"
    slug: str
    rows: list[MatchupRow]


def defines(table: str, row: MatchupRow) -> bool:
    """Whether the paper defines `table`'s figure for this row: optimality where the game's moves have
    exact values (the paper's games; an equilibrium or an engine grades on another scale), recognition
    where a model left texts to read it on (traces, or replies), tokens where a model played, outcomes
    everywhere."""
    if table == "optimality":
        return ground_truth(row.game) == "exact"
    if table == "recognition":
        return row.uses_model and row.recognition.n > 0
    return row.uses_model if table in MODEL_ONLY else True


def _setting(row: MatchupRow) -> tuple[str, ...]:
    return (row.game, row.formulation, row.player, row.opponent)


def paper_tables(rows: list[MatchupRow]) -> list[PaperTable]:
    """One table per (pivot, game), split further by run where runs repeat a setting."""
    split_runs = any(n > 1 for n in Counter(map(_setting, rows)).values())
    scopes: dict[tuple[str, str], list[MatchupRow]] = {}
    for r in rows:
        scopes.setdefault((r.game, r.run if split_runs else ""), []).append(r)
    out = []
    for table, by, caption in PIVOTS:
        for (game, run), scoped in scopes.items():
            chosen = [r for r in scoped if defines(table, r)]
            if not chosen:
                continue
            scope = f"{game}, run {printed_run_name(run)}" if run else game
            slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(s for s in (table, game, run) if s))
            out.append(PaperTable(table, by, caption, scope, slug, chosen))
    return out
