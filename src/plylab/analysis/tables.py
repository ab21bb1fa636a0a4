"""Tables in the paper's layouts, rendered as a terminal table, markdown, CSV, LaTeX or JSON."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import UserError
from ..printable import printable

FORMATS = ("table", "markdown", "csv", "latex", "json")
TABLES = ("matchups", "outcomes", "optimality", "recognition", "tokens", "equilibrium")
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


def payoff_cell(est: dict[str, Any] | None) -> str:
    """Mean payoff per game with its 95% Student-t interval (chips in poker, +1/-1 in dice)."""
    if not est or est.get("mean") is None:
        return "–"
    if est.get("low") is None:
        return f"{est['mean']:+.2f}"
    return f"{est['mean']:+.2f} [{est['low']:+.2f}, {est['high']:+.2f}]"


def recognition_cell(est: dict[str, Any]) -> str:
    """The rate (missing, never zero, where no move had a trace) and how many moves had one."""
    if est.get("on", "trace") != "trace" or "moves" not in est:
        return rate_cell(est)
    return f"{rate_cell(est)} ({est['traced']}/{est['moves']} traced)"


def interval_cell(est: dict[str, Any] | None) -> str:
    """The game-clustered bootstrap interval of a rate (moves within a game are not independent)."""
    if not est or est.get("cluster_low") is None:
        return "–"
    return f"[{_p(est['cluster_low'])}, {_p(est['cluster_high'])}]"


def run_label(rows: list[dict[str, Any]]) -> Callable[[dict[str, Any]], str] | None:
    """How a row names its run: needed when rows come from several runs, or from one not finished."""
    if len({r.get("run") for r in rows}) < 2 and all(r.get("status", "finished") == "finished" for r in rows):
        return None
    return lambda r: r["run"] + ("" if r.get("status", "finished") == "finished" else f" ({r['status']})")


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
        "clustered 95%",
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
            interval_cell(r["optimality"]),
            str(r["optimality"]["scored"]),
            mean_cell(r["tokens_per_move"]),
        ]
        for r in rows
    ]
    if any("payoff" in r for r in rows):  # hidden-information games: the mean payoff per game
        at = header.index("F") + 1
        header.insert(at, "payoff/game [95%]")
        for r, cells in zip(rows, body, strict=True):
            cells.insert(at, payoff_cell(r.get("payoff")))
    label = run_label(rows)
    if label is not None:
        header.insert(0, "run")
        body = [[label(r), *cells] for r, cells in zip(rows, body, strict=True)]
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

    def setting(r: dict[str, Any]) -> tuple[str, ...]:
        return tuple(r[k] for k in ("game", "formulation", "opponent") if k != by)

    # Runs usually fill different columns of one row (a run per formulation); where two runs fill the
    # same cell, every row names its run instead of one cell overwriting the other.
    cells = [(r["player"], setting(r), r[by]) for r in rows]
    label = run_label(rows) if len(set(cells)) < len(cells) else None
    for r in rows:
        col = r[by]
        if col not in cols:
            cols.append(col)
        rest = setting(r) if label is None else (*setting(r), label(r))
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
    if table == "recognition" and any(r["recognition"].get("scope") == "wide" for r in rows):
        label += ", wide patterns (not the paper's: names only)"
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
    if table == "equilibrium":  # games of hidden information: losses against the equilibrium
        return equilibrium_table(rows, fmt)
    if fmt == "json":
        body_json = {"matchups": rows} if table == "matchups" else pivot_json(rows, table, by)
        return json.dumps(body_json, indent=2)
    if table == "outcomes":  # the paper's Tables 6/7: each column's W D L F under it
        header, body = pivot(rows, table, by)
        cols = header[2:]
        wide = [r[:2] + [x for c in r[2:] for x in (c.split(" ") if c != "–" else ["–"] * 4)] for r in body]
        groups = [("", 2)] + [(c, 4) for c in cols]
        return format_grid(header[:2] + ["W", "D", "L", "F"] * len(cols), wide, fmt, groups=groups)
    header, body = _matchup_table(rows) if table == "matchups" else pivot(rows, table, by)
    text = format_grid(header, body, fmt)
    if table == "matchups" and fmt != "csv" and any(r.get("equilibrium") for r in rows):
        text += "\n\n" + equilibrium_table(rows, fmt)
    return text


def equilibrium_table(rows: list[dict[str, Any]], fmt: str) -> str:
    from . import equilibrium

    if fmt == "json":
        return json.dumps({"equilibrium": [r for r in rows if r.get("equilibrium")]}, indent=2)
    header, body = equilibrium.table(rows)
    return format_grid(header, body, fmt, notes=[equilibrium.note(rows)] if body else [])


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


# A two-level header, as the papers print Tables 3, 6 and 7: (label, span) pairs over the header's
# columns, "" over a column with no group.
Groups = Sequence[tuple[str, int]]


def format_grid(
    header: list[str],
    body: list[list[str]],
    fmt: str,
    *,
    title: str | None = None,
    notes: Sequence[str] = (),
    groups: Groups | None = None,
) -> str:
    """One header-and-rows grid as csv, markdown, a LaTeX tabular or a terminal table (notes below it),
    with `groups` over the header where given.

    Cells hold stored strings (run names, specs): control characters are escaped in every format,
    and a terminal table shows rich markup as the text it is."""
    header = [printable(h) for h in header]
    body = [[printable(c) for c in row] for row in body]
    if groups and sum(n for _, n in groups) != len(header):
        raise ValueError("header groups must span the header exactly")
    if groups and any(label for label, _ in groups):
        render = {"markdown": _markdown, "csv": _csv, "latex": _latex}.get(fmt, _text)
        return render(header, body, notes, [(printable(label), n) for label, n in groups])
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
    from rich.console import Console  # here, not above: the CLI reads FORMATS etc. for its help text
    from rich.markup import escape
    from rich.table import Table

    t = Table(*map(escape, header), title=title and escape(printable(title)), show_lines=False)
    for row in body:
        t.add_row(*map(escape, row))
    widest = [max(len(str(c)) for c in column) for column in zip(header, *body, strict=True)]
    console = Console(record=True, width=max(200, sum(widest) + 3 * len(widest) + 1))  # never cut a cell
    with console.capture() as cap:
        console.print(t)
        for n in notes:
            console.print(n)
    return cap.get()


def spread(groups: Groups) -> list[str]:
    """The group label over the first column of its span, blank over the rest."""
    out: list[str] = []
    for label, n in groups:
        out += [label] + [""] * (n - 1)
    return out


def _markdown(header: list[str], body: list[list[str]], notes: Sequence[str], groups: Groups) -> str:
    """Markdown has one header row: the groups head the table, the sub-columns are its first row."""
    top = [g if in_group(groups, i) else h for i, (g, h) in enumerate(zip(spread(groups), header))]
    lines = ["| " + " | ".join(top) + " |", "|" + "---|" * len(header)]
    second = [f"**{h}**" if in_group(groups, i) else "" for i, h in enumerate(header)]
    lines.append("| " + " | ".join(second) + " |")
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines + ([""] + [f"- {n}" for n in notes] if notes else []))


def in_group(groups: Groups, col: int) -> bool:
    i = 0
    for label, n in groups:
        if i <= col < i + n:
            return bool(label)
        i += n
    return False


def _csv(header: list[str], body: list[list[str]], notes: Sequence[str], groups: Groups) -> str:
    out = io.StringIO()
    top = spread(groups)
    second = [h if in_group(groups, i) else "" for i, h in enumerate(header)]
    first = [g if in_group(groups, i) else h for i, (g, h) in enumerate(zip(top, header))]
    csv.writer(out, lineterminator="\n").writerows([first, second, *body])
    return out.getvalue().rstrip("\n")


def _latex(header: list[str], body: list[list[str]], notes: Sequence[str], groups: Groups) -> str:
    top, rules, i = [], [], 0
    for label, n in groups:
        if label:
            top.append(rf"\multicolumn{{{n}}}{{c}}{{{latex_escape(label)}}}")
            rules.append(rf"\cmidrule(lr){{{i + 1}-{i + n}}}")
        else:
            top += [latex_escape(h) for h in header[i : i + n]]
        i += n
    second = [latex_escape(h) if in_group(groups, j) else "" for j, h in enumerate(header)]
    lines = [
        r"\begin{tabular}{" + "l" * 2 + "r" * (len(header) - 2) + "}",
        r"\toprule",
        " & ".join(top) + r" \\",
        " ".join(rules),
        " & ".join(second) + r" \\",
        r"\midrule",
    ]
    lines += [" & ".join(latex_escape(c) for c in row) + r" \\" for row in body]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines + [f"% {n}" for n in notes])


def _text(header: list[str], body: list[list[str]], notes: Sequence[str], groups: Groups) -> str:
    """A plain terminal table whose group labels are centred over their columns."""
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(header)]
    i = 0
    for label, n in groups:  # a group label wider than its columns widens its last column
        span = sum(widths[i : i + n]) + 2 * (n - 1)
        if len(label) > span:
            widths[i + n - 1] += len(label) - span
        i += n

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    top, under, i = [], [], 0
    for label, n in groups:
        span = sum(widths[i : i + n]) + 2 * (n - 1)
        top.append(label.center(span) if label else " " * span)
        under.append(("-" if label else " ") * span)
        i += n
    rule = "  ".join("-" * w for w in widths)
    out = ["  ".join(top).rstrip(), "  ".join(under).rstrip(), line(header), rule]
    out += [line(r) for r in body] + list(notes)
    return "\n".join(out)
