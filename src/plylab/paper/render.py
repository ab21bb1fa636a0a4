"""How a paper table, figure or Clue table is written out: grids, comments and a plain HTML page
in every report format (one place, shared by report, figures and clue_tables).

A grid may carry a two-level header, as the papers print Tables 3, 6 and 7: `groups` are
(label, span) pairs over the header's columns ("" for a column with no group).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ..analysis.tables import Groups, format_grid


def grid(
    header: list[str],
    body: list[list[str]],
    fmt: str,
    notes: Sequence[str] = (),
    groups: Groups | None = None,
) -> str:
    """analysis.tables.format_grid, plus a plain HTML table and the two-level header in every format."""
    if fmt == "html":
        return _html(header, body, notes, groups)
    return format_grid(header, body, fmt, notes=notes, groups=groups)


def _html(header: list[str], body: list[list[str]], notes: Sequence[str], groups: Groups | None) -> str:
    if groups and any(label for label, _ in groups):
        top, second, i = [], [], 0
        for label, n in groups:
            if label:
                top.append(f"<th colspan={n}>{escape(label)}</th>")
                second += [f"<th>{escape(h)}</th>" for h in header[i : i + n]]
            else:
                top += [f"<th rowspan=2>{escape(h)}</th>" for h in header[i : i + n]]
            i += n
        rows = ["<tr>" + "".join(top) + "</tr>", "<tr>" + "".join(second) + "</tr>"]
    else:
        rows = ["<tr>" + "".join(f"<th>{escape(h)}</th>" for h in header) + "</tr>"]
    rows += ["<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in body]
    return (
        "<table>\n"
        + "\n".join(rows)
        + "\n</table>"
        + "".join(f"\n<p class=note>{escape(n)}</p>" for n in notes)
    )


def html_page(title: str, body: str) -> str:
    style = (
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child{text-align:left}"
        ".note{color:#555;font-size:small}"
    )
    return (
        f"<!doctype html>\n<html><head><meta charset=utf-8><title>{escape(title)}</title><style>{style}</style>"
        f"</head><body>\n{body}\n</body></html>\n"
    )


def comment(fmt: str, lines: list[str]) -> str:
    if fmt == "html":
        return "\n".join(
            f"<h2>{escape(line)}</h2>" if i == 0 else f"<p>{escape(line)}</p>" for i, line in enumerate(lines)
        )
    if fmt == "latex":
        return "\n".join(f"% {line}" for line in lines)
    if fmt == "csv":
        return "\n".join(f"# {line}" for line in lines)
    if fmt == "markdown":
        return "\n".join(f"**{line}**" if i == 0 else line + "  " for i, line in enumerate(lines))
    return "\n".join(lines)
