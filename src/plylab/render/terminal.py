"""Markdown text as the terminal shows `plylab report`: each pipe table drawn as a rich table,
every other line kept. Lets a report written once as markdown (`clue report`) print the same kind
of terminal table as `report`, and `terminal_default` picks that kind where a person reads it."""

from __future__ import annotations

import re
import sys

from .grid import format_grid

_RULE = re.compile(r"^\|(\s*:?-+:?\s*\|)+\s*$")


def _cells(line: str) -> list[str]:
    inner = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    return [c.strip().strip("`") for c in inner.split(" | ")]


def markdown_as_terminal(text: str) -> str:
    """`text` with every markdown pipe table (header, rule, rows) drawn as a terminal table."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and _RULE.match(lines[i + 1]):
            header, j = _cells(lines[i]), i + 2
            rows = []
            while j < len(lines) and lines[j].startswith("|"):
                row = _cells(lines[j])
                rows.append((row + [""] * len(header))[: len(header)])
                j += 1
            out.append(format_grid(header, rows, "table").rstrip("\n"))
            i = j
        else:
            out.append(re.sub(r"`([^`]*)`", r"\1", re.sub(r"^#+\s+", "", lines[i])))  # no markdown marks
            i += 1
    return "\n".join(out) + "\n"


def terminal_default(out_file: object = None) -> str:
    """`table` when the report goes to a terminal, `markdown` when piped or written to a file."""
    return "table" if out_file is None and sys.stdout.isatty() else "markdown"
