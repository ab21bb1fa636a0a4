"""The site's section for games of hidden information: what each matchup's decisions lost against
the game's equilibrium (analysis.equilibrium), the same cells as the terminal table."""

from __future__ import annotations

from ..analysis import equilibrium
from ..analysis.results import MatchupRow
from .page import Cell, Grid, Section


def section(rows: list[MatchupRow]) -> Section | None:
    """None when no matchup was scored against an equilibrium."""
    header, body = equilibrium.table(rows)
    if not body:
        return None
    cells = [
        [Cell(c, cls="num" if i >= 5 else None) for i, c in enumerate(row)] for row in body
    ]  # after run … opponent
    return Section(
        "equilibrium",
        "Equilibrium",
        equilibrium.note(rows),
        tables=[Grid("equilibrium-table", "Losses against the equilibrium", header, cells)],
    )
