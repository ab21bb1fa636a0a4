"""Tables in the paper's layouts, rendered as a terminal table, markdown, CSV, LaTeX or JSON."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import UserError
from ..printable import printable

FORMATS = ("table", "markdown", "csv", "latex", "json")
TABLES = ("matchups", "outcomes", "optimality", "recognition", "tokens")
BY = ("formulation", "opponent", "game")


def _p(x: float | None) -> str:
    if x is None:
        return "–"
    return "1.00" if x >= 0.9995 else f"{x:.3f}".lstrip("0") if x < 1 else f"{x:.2f}"


def rate_cell(est: dict[str, Any] | None) -> str:
    if not est or est.get("rate") is None:
        return "–"
    return f"{_p(est['rate'])} [{_p(est['low'])}, {_p(est['high'])}]"


def mean_cell(est: dict[str, Any] | None) -> str:
    if not est or est.get("mean") is None:
        return "–"
    half = (est["high"] - est["mean"]) if est["high"] is not None else 0.0
    return f"{est['mean']:.1f} ±{half:.1f}"


def recognition_cell(est: dict[str, Any]) -> str:
    """The rate (missing, never zero, where no move had a trace) and how many moves had one."""
    if est.get("on", "trace") != "trace" or "moves" not in est:
        return rate_cell(est)
    return f"{rate_cell(est)} ({est['traced']}/{est['moves']} traced)"


def _matchup_table(rows: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
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
        "scored",
        "tokens/move",
    ]
    body = [
        [
            r["game"],
            r["formulation"],
            r["player"],
            r["opponent"],
            str(r["games"]),
            str(r["wins"]),
            str(r["draws"]),
            str(r["losses"]),
            str(r["failures"]),
            rate_cell(r["optimality"]),
            str(r["optimality"]["scored"]),
            mean_cell(r["tokens_per_move"]),
        ]
        for r in rows
    ]
    return header, body


VALUES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "optimality": lambda r: r["optimality"],
    "recognition": lambda r: r["recognition"],
    "tokens": lambda r: r["tokens_per_move"],
    "outcomes": lambda r: {k: r[k] for k in ("wins", "draws", "losses", "failures")},
}

CELLS: dict[str, Callable[[dict[str, Any]], str]] = {
    "optimality": lambda r: rate_cell(r["optimality"]),
    "recognition": lambda r: recognition_cell(r["recognition"]),
    "tokens": lambda r: mean_cell(r["tokens_per_move"]),
    "outcomes": lambda r: f"{r['wins']} {r['draws']} {r['losses']} {r['failures']}",
}


def _grid(
    rows: list[dict[str, Any]], by: str, cell: Callable[[dict[str, Any]], Any]
) -> tuple[list[str], dict[tuple[str, str], dict[str, Any]]]:
    cols: list[str] = []
    grid: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        col = r[by]
        if col not in cols:
            cols.append(col)
        rest = tuple(r[k] for k in ("game", "formulation", "opponent") if k != by)
        grid.setdefault((r["player"], " / ".join(rest)), {})[col] = cell(r)
    return cols, grid


def pivot_json(rows: list[dict[str, Any]], table: str, by: str) -> dict[str, Any]:
    cols, grid = _grid(rows, by, VALUES[table])
    return {
        "table": table,
        "by": by,
        "columns": cols,
        "rows": [{"player": p, "setting": setting, "cells": cells} for (p, setting), cells in grid.items()],
    }


def pivot(rows: list[dict[str, Any]], table: str, by: str) -> tuple[list[str], list[list[str]]]:
    """Players as rows, `by` values as columns (the paper's Tables 4-13 layout)."""
    cols, grid = _grid(rows, by, CELLS[table])
    label = "W D L F by " + by if table == "outcomes" else f"{table} by {by}"
    header = ["player", "setting"] + [f"{c}" for c in cols]
    body = [[p, setting] + [cells.get(c, "–") for c in cols] for (p, setting), cells in grid.items()]
    header[1] = f"setting ({label})"
    return header, body


def render(rows: list[dict[str, Any]], fmt: str, table: str = "matchups", by: str = "opponent") -> str:
    if fmt not in FORMATS:
        raise UserError(f"unknown format '{fmt}'; accepted: {', '.join(FORMATS)}")
    if table not in TABLES:
        raise UserError(f"unknown table '{table}'; accepted: {', '.join(TABLES)}")
    if by not in BY:
        raise UserError(f"unknown --by '{by}'; accepted: {', '.join(BY)}")
    if fmt == "json":
        body_json = {"matchups": rows} if table == "matchups" else pivot_json(rows, table, by)
        return json.dumps(body_json, indent=2)
    header, body = _matchup_table(rows) if table == "matchups" else pivot(rows, table, by)
    return format_grid(header, body, fmt)


def latex_escape(text: str) -> str:
    for a, b in (
        ("\\", r"\textbackslash{}"),
        ("_", r"\_"),
        ("%", r"\%"),
        ("&", r"\&"),
        ("#", r"\#"),
        ("$", r"\$"),
        ("{", r"\{"),
        ("}", r"\}"),
        ("±", r"$\pm$"),
    ):
        text = text.replace(a, b)
    return text


def format_grid(
    header: list[str], body: list[list[str]], fmt: str, *, title: str | None = None, notes: Sequence[str] = ()
) -> str:
    """One header-and-rows grid as csv, markdown, a LaTeX tabular or a terminal table (notes below it).

    Cells hold stored strings (run names, specs): control characters are escaped in every format,
    and a terminal table shows rich markup as the text it is."""
    header = [printable(h) for h in header]
    body = [[printable(c) for c in row] for row in body]
    if fmt == "csv":
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([header, *body])
        return out.getvalue().rstrip("\n")
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(lines + ([""] + [f"- {n}" for n in notes] if notes else []))
    if fmt == "latex":
        lines = [
            r"\begin{tabular}{" + "l" * 2 + "r" * (len(header) - 2) + "}",
            r"\toprule",
            " & ".join(latex_escape(h) for h in header) + r" \\",
            r"\midrule",
        ]
        lines += [" & ".join(latex_escape(c) for c in row) + r" \\" for row in body]
        lines += [r"\bottomrule", r"\end{tabular}"]
        lines += [f"% {n}" for n in notes]
        return "\n".join(lines)
    t = Table(*map(escape, header), title=title and escape(printable(title)), show_lines=False)
    for row in body:
        t.add_row(*map(escape, row))
    console = Console(record=True, width=200)
    with console.capture() as cap:
        console.print(t)
        for n in notes:
            console.print(n)
    return cap.get()
