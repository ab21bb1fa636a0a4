"""A typed table and the one registry of table definitions.

A table definition is a name, a line saying what it shows and a function from what it is built on
(a store and the command's options) to a `Table`: columns, an optional two-level header, rows of
cells, notes. `render` draws any `Table` in every format plylab writes (terminal, markdown, CSV,
LaTeX, JSON, HTML), so adding a table is one module: a builder decorated by `register_table`.
The report's tables (`analysis.tables`), the papers' and Clue's are entries here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from ..errors import UserError
from ..registry import Registry
from .grid import Groups, format_grid, grid

FORMATS = ("table", "markdown", "csv", "latex", "json", "html")

Source = TypeVar("Source")  # what a table is built from (a store and options, a Clue report...)


@dataclass(frozen=True)
class Table:
    """Columns and rows of cells as they are printed; `groups` spans a second header level over
    the columns; `data` is the table's JSON form where it has a richer one than its cells."""

    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    groups: Groups | None = None
    notes: Sequence[str] = ()
    title: str | None = None
    data: object = field(default=None, compare=False)

    def to_json(self) -> object:
        """The table as JSON: its `data`, or its cells under their column names."""
        if self.data is not None:
            return self.data
        return {
            "title": self.title,
            "columns": list(self.columns),
            "groups": None if self.groups is None else [list(g) for g in self.groups],
            "rows": [list(r) for r in self.rows],
            "notes": list(self.notes),
        }


def render(table: Table, fmt: str) -> str:
    """`table` in `fmt` (one of FORMATS)."""
    if fmt not in FORMATS:
        raise UserError(f"unknown format '{fmt}'; accepted: {', '.join(FORMATS)}")
    if fmt == "json":
        return json.dumps(table.to_json(), indent=2)
    columns, rows = list(table.columns), [list(r) for r in table.rows]
    if fmt == "html":
        return grid(columns, rows, fmt, table.notes, table.groups)
    return format_grid(columns, rows, fmt, title=table.title, notes=table.notes, groups=table.groups)


@dataclass(frozen=True)
class TableDef(Generic[Source]):
    """One table of the house: its name, what it shows, and how it is built."""

    name: str
    about: str
    build: Callable[[Source], Table]


TABLE_DEFS: Registry[TableDef[object]] = Registry("table")


def register_table(name: str, about: str) -> Callable[[Callable[[Source], Table]], Callable[[Source], Table]]:
    """Decorate a builder `(source) -> Table` to make it the table `name`."""

    def deco(build: Callable[[Source], Table]) -> Callable[[Source], Table]:
        TABLE_DEFS.add(name, TableDef(name, about, build))  # type: ignore[arg-type]
        return build

    return deco


def get_table(name: str) -> TableDef[object]:
    """The table definition named `name` (one line naming the known ones otherwise)."""
    return TABLE_DEFS.get(name)
