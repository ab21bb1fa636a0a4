"""Tables in the paper's layouts, rendered as a terminal table, markdown, CSV, LaTeX or JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..errors import UserError
from ..jsontypes import JSONObject, JSONValue
from ..render.grid import Groups, format_grid, latex_escape
from ..render.table import Table, register_table
from ..render.table import render as render_table
from ..words import count
from . import BY, FORMATS, REPORT_TABLES, TABLES
from .batch import noted
from .ratings_table import ABOUT as RATINGS_ABOUT
from .ratings_table import ratings_table
from .report_source import ReportSource
from .results import Interval, MatchupRow, Rate, Recognition
from .stats import estimate_text, interval_holds

__all__ = ["BY", "FORMATS", "REPORT_TABLES", "TABLES", "Groups", "format_grid", "latex_escape", "render"]


def proportion(x: float | None) -> str:
    """A proportion as the paper prints it: `.750`, `1.00`; – for none."""
    if x is None:
        return "–"
    return "1.00" if x >= 0.9995 else f"{x:.3f}".lstrip("0") if x < 1 else f"{x:.2f}"


def rate_cell(est: Interval | None) -> str:
    """A rate with its Wilson interval where the interval holds (stats.interval_holds), n otherwise;
    a published rate (no units) with the interval the paper prints."""
    if est is None or est.value is None:
        return "–"
    n = est.units
    if n is not None:
        return estimate_text(est.value, est.low, est.high, n, proportion)
    return f"{proportion(est.value)} [{proportion(est.low)}, {proportion(est.high)}]"


def mean_cell(est: Interval | None) -> str:
    """A mean with its Student-t interval by the one rule (stats.estimate_text): `mean [low, high]`, or
    `mean (n=k)` where the interval cannot hold; a published mean (no units) with its interval. Brackets,
    not ± a half-width: a count's interval is clipped at zero (metrics), so it need not be symmetric."""
    if est is None or est.value is None:
        return "–"
    if est.units is None:
        if est.low is None or est.high is None:
            return f"{est.value:.1f}"
        return f"{est.value:.1f} [{est.low:.1f}, {est.high:.1f}]"
    return estimate_text(est.value, est.low, est.high, est.units, "{:.1f}".format)


def payoff_cell(est: Interval | None) -> str:
    """Mean payoff per game with its 95% Student-t interval (chips in poker, +1/-1 in dice)."""
    if est is None or est.value is None:
        return "–"
    if est.low is None and est.units is None:
        return f"{est.value:+.2f}"
    return estimate_text(est.value, est.low, est.high, est.units, lambda x: f"{x:+.2f}")


def recognition_cell(est: Recognition) -> str:
    """The rate (missing, never zero, where no move had a trace) and how many moves had one."""
    if est.on != "trace":
        return rate_cell(est)
    return f"{rate_cell(est)} ({est.traced}/{est.moves} traced)"


def interval_cell(est: Rate | None) -> str:
    """The game-clustered bootstrap interval of a rate (moves within a game are not independent)."""
    if est is None or not interval_holds(est.cluster_low, est.cluster_high, est.units):
        return "–"  # one game, or games that all agree: a zero-width bootstrap is no interval
    return f"[{proportion(est.cluster_low)}, {proportion(est.cluster_high)}]"


def run_label(rows: list[MatchupRow]) -> Callable[[MatchupRow], str] | None:
    """How a row names its run: needed when rows come from several runs, or from one not finished."""
    if len({r.run for r in rows}) < 2 and all(r.status == "finished" for r in rows):
        return None
    from ..players.canonical import printed_run_name  # here: `plylab --help` loads no pydantic

    return lambda r: printed_run_name(r.run) + ("" if r.status == "finished" else f" ({r.status})")


def _matchup_table(rows: list[MatchupRow]) -> tuple[list[str], list[list[str]]]:
    header = [
        "game",
        "formulation",
        "player",
        "opponent",
        "games",
        "W",
        "D",
        "L",
        "F",
        "optimality [95% Wilson]",
        "clustered 95%",
        "scored",
        "tokens/move [95% t]",
    ]
    body = [
        [
            r.game,
            r.formulation,
            r.player,
            r.opponent,
            str(r.games),
            str(r.wins),
            str(r.draws),
            str(r.losses),
            str(r.failures),
            optimality_cell(r),
            interval_cell(r.optimality),
            str(r.optimality.scored),
            mean_cell(r.tokens_per_move),
        ]
        for r in rows
    ]
    if any(r.payoff is not None for r in rows):  # hidden-information games: the mean payoff per game
        at = header.index("F") + 1
        header.insert(at, "payoff/game [95%]")
        for r, cells in zip(rows, body, strict=True):
            cells.insert(at, payoff_cell(r.payoff))
    label = run_label(rows)
    if label is not None:
        header.insert(0, "run")
        body = [[label(r), *cells] for r, cells in zip(rows, body, strict=True)]
    return header, body


def _outcomes(r: MatchupRow) -> JSONValue:
    return {k: n for k, n in r.outcome_counts.items()}


VALUES: dict[str, Callable[[MatchupRow], JSONValue]] = {
    "optimality": lambda r: r.optimality.to_json(),
    "recognition": lambda r: r.recognition.to_json(),
    "tokens": lambda r: r.tokens_per_move.to_json(),
    "outcomes": _outcomes,
}

FORFEITED = "†"  # the paper's mark (Table 2, 003 l.74): the rate leaves out the moves that failed


def optimality_cell(r: MatchupRow) -> str:
    """The optimality rate over the moves the player made, marked † where it forfeited games: as
    the paper's Table 2 does (003 l.74), a failed move is no decision and is counted apart, in F."""
    return rate_cell(r.optimality) + (FORFEITED if r.failures else "")


def optimality_notes(rows: list[MatchupRow]) -> list[str]:
    """What a reader needs beside an optimality column: what n counts, and what † leaves out."""
    notes = []
    opt = [r.optimality for r in rows]
    if any(o.rate is not None and not interval_holds(o.low, o.high, o.scored) for o in opt):
        notes.append(
            "optimality (n=k): a rate over k graded decisions (positions where some move is not "
            "optimal), too few or too alike for an interval"
        )
    for r in rows:
        if r.failures:
            notes.append(
                f"{FORFEITED} {r.player} vs {r.opponent} ({r.game}, {r.formulation}): failed to return a legal "
                f"action in {r.failures} of {count(r.games, 'game')} (F), each forfeited; its optimality is "
                f"over the {count(r.optimality.scored, 'decision')} it did make, as the paper's Table 2 "
                "(003 l.74)"
            )
    return notes


CELLS: dict[str, Callable[[MatchupRow], str]] = {
    "optimality": optimality_cell,
    "recognition": lambda r: recognition_cell(r.recognition),
    "tokens": lambda r: mean_cell(r.tokens_per_move),
    "outcomes": lambda r: f"{r.wins} {r.draws} {r.losses} {r.failures}",
}

Cell = TypeVar("Cell")


def _grid(
    rows: list[MatchupRow], by: str, cell: Callable[[MatchupRow], Cell]
) -> tuple[list[str], dict[tuple[str, str], dict[str, Cell]]]:
    cols: list[str] = []
    grid: dict[tuple[str, str], dict[str, Cell]] = {}

    def setting(r: MatchupRow) -> tuple[str, ...]:
        return tuple(r.column(k) for k in ("game", "formulation", "opponent") if k != by)

    # Runs usually fill different columns of one row (a run per formulation); where two runs fill the
    # same cell, every row names its run instead of one cell overwriting the other.
    cells = [(r.player, setting(r), r.column(by)) for r in rows]
    label = run_label(rows) if len(set(cells)) < len(cells) else None
    for r in rows:
        col = r.column(by)
        if col not in cols:
            cols.append(col)
        rest = setting(r) if label is None else (*setting(r), label(r))
        grid.setdefault((r.player, " / ".join(rest)), {})[col] = cell(r)
    return cols, grid


def pivot_json(rows: list[MatchupRow], table: str, by: str) -> JSONObject:
    cols, grid = _grid(rows, by, VALUES[table])
    return {
        "table": table,
        "by": by,
        "columns": list(cols),
        "rows": [{"player": p, "setting": setting, "cells": cells} for (p, setting), cells in grid.items()],
    }


def pivot(rows: list[MatchupRow], table: str, by: str) -> tuple[list[str], list[list[str]]]:
    """Players as rows, `by` values as columns (the paper's Tables 4-13 layout)."""
    cols, grid = _grid(rows, by, CELLS[table])
    label = "W D L F by " + by if table == "outcomes" else f"{table} by {by}"
    if table == "recognition" and any(r.recognition.scope == "wide" for r in rows):
        label += ", wide patterns (not the paper's: names only)"
    header = ["player", "setting"] + [f"{c}" for c in cols]
    body = [[p, setting] + [cells.get(c, "–") for c in cols] for (p, setting), cells in grid.items()]
    header[1] = f"setting ({label})"
    return header, body


def table_of(rows: list[MatchupRow], table: str = "matchups", by: str = "opponent") -> Table:
    """The report's table `table` of matchup rows, pivoted `by` (its JSON: the rows, or the pivot)."""
    if table not in TABLES:
        raise UserError(f"unknown table '{table}'; accepted: {', '.join(TABLES)}")
    if by not in BY:
        raise UserError(f"unknown --by '{by}'; accepted: {', '.join(BY)}")
    if table == "equilibrium":  # games of hidden information: losses against the equilibrium
        return equilibrium_table(rows)
    return noted(
        _table_of(rows, table, by),
        [s for r in rows for s in (r.player, r.opponent)],
        "matchups" if table == "matchups" else "rows",
    )


def _table_of(rows: list[MatchupRow], table: str, by: str) -> Table:
    data: JSONObject = (
        {"matchups": [r.to_json() for r in rows]} if table == "matchups" else pivot_json(rows, table, by)
    )
    if table == "outcomes":  # the paper's Tables 6/7: each column's W D L F under it
        header, body = pivot(rows, table, by)
        cols = header[2:]
        wide = [r[:2] + [x for c in r[2:] for x in (c.split(" ") if c != "–" else ["–"] * 4)] for r in body]
        groups = [("", 2)] + [(c, 4) for c in cols]
        return Table(header[:2] + ["W", "D", "L", "F"] * len(cols), wide, groups=groups, data=data)
    header, body = _matchup_table(rows) if table == "matchups" else pivot(rows, table, by)
    notes = optimality_notes(rows) if table in ("matchups", "optimality") else []
    return Table(header, body, notes=notes, data=data)


def equilibrium_table(rows: list[MatchupRow]) -> Table:
    """Each hidden-information matchup's losses against the game's equilibrium (issue 27)."""
    from . import equilibrium

    header, body = equilibrium.table(rows)
    data = {"equilibrium": [r.to_json() for r in rows if r.equilibrium is not None]}
    return Table(header, body, notes=[equilibrium.note(rows)] if body else [], data=data)


def render(rows: list[MatchupRow], fmt: str, table: str = "matchups", by: str = "opponent") -> str:
    if fmt not in FORMATS:
        raise UserError(f"unknown format '{fmt}'; accepted: {', '.join(FORMATS)}")
    text = render_table(table_of(rows, table, by), fmt)
    if table == "matchups" and fmt not in ("csv", "json") and any(r.equilibrium is not None for r in rows):
        text += "\n\n" + render_table(equilibrium_table(rows), fmt)
    return text


def follow_ups(source: ReportSource, table: str, fmt: str) -> list[Table]:
    """Tables printed under `table` in a text format: the matchups' losses against an equilibrium."""
    rows = source.rows() if table == "matchups" and fmt not in ("csv", "json") else []
    return [equilibrium_table(rows)] if any(r.equilibrium is not None for r in rows) else []


ABOUT = {
    "matchups": "per matchup: games, W D L F, optimality with Wilson and game-clustered intervals, tokens per move",
    "outcomes": "W D L F per player, a column per --by value (the paper's Tables 6 and 7)",
    "optimality": "optimal-move rate per player, a column per --by value (the paper's Tables 2-4, 8, 10)",
    "recognition": "how often a trace names the game, per player (the paper's Tables 5, 9, 11)",
    "tokens": "output tokens per move per player (the paper's Tables 12-14)",
    "equilibrium": "per hidden-information matchup: expected loss, equilibrium-action rate, payoff, exploitability",
}


def _entry(name: str) -> None:
    def build(source: ReportSource) -> Table:
        return table_of(source.rows(), name, source.by)

    register_table(name, ABOUT[name])(build)


for _name in TABLES:
    _entry(_name)
register_table("ratings", RATINGS_ABOUT)(ratings_table)


@register_table(
    "chess", "per chess matchup: ACPL, accuracy, judgements as lichess counts them, engine's best move"
)
def chess_table(source: ReportSource) -> Table:
    """`--table chess` (analysis/chess.py, imported here only when built: `plylab --help` loads no pydantic)."""
    from .chess import chess_rows
    from .chess import chess_table as build

    return build(chess_rows(source.store, source.run))
