"""One grid of cells drawn in every format plylab writes: a terminal table, markdown, CSV, LaTeX and
HTML, with an optional two-level header (the papers' Tables 3, 6 and 7), notes under it, and the
comments and plain page a paper table is written with. Every table of the house ends here
(`render.table` holds the typed table and its registry).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from html import escape

from ..cells import cell
from ..printable import printable


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
        csv.writer(out, lineterminator="\n").writerows([[cell(c) for c in r] for r in [header, *body]])
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
    csv.writer(out, lineterminator="\n").writerows([[cell(c) for c in r] for r in [first, second, *body]])
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


def grid(
    header: list[str],
    body: list[list[str]],
    fmt: str,
    notes: Sequence[str] = (),
    groups: Groups | None = None,
) -> str:
    """format_grid, plus a plain HTML table and the two-level header in every format."""
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
