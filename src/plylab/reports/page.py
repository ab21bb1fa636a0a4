"""What a page is made of, as plain values the templates render: cells, tables, figures, sections."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


@dataclass
class Cell:
    text: str
    sort: float | str | None = None
    href: str | None = None
    cls: str | None = None


@dataclass
class Grid:
    id: str
    title: str
    header: list[str]
    rows: list[list[Cell]]
    note: str = ""
    empty: str = "Nothing to show."
    # per row, what folds into a detail row under it (columns that matter less, so the table fits
    # 1280 px); a "more" button opens it. Empty: no detail rows.
    details: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # an anchor must be a valid id: game specs and scopes carry spaces, ':', '=' and ','
        self.id = re.sub(r"[^A-Za-z0-9_-]+", "-", self.id).strip("-") or "table"


@dataclass
class Plot:
    png: str
    svg: str
    caption: str


@dataclass
class Section:
    """An optional part of the index (learning curves, Clue) that exists only with its data."""

    id: str
    title: str
    note: str = ""
    tables: list[Grid] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)


def plot_ref(png: Path, out_dir: Path, caption: str) -> Plot:
    """A figure as the page links it: the PNG shown, the SVG (when written) one click away."""
    svg = png.with_suffix(".svg")
    return Plot(
        png.relative_to(out_dir).as_posix(),
        (svg if svg.exists() else png).relative_to(out_dir).as_posix(),
        caption,
    )


class PageWriter(Protocol):
    """What a section builder needs from the site writer: where pages go and how one is written.

    Section builders (reports/extras.py) depend on this, not on site.py, so no module of the
    report imports back the module that calls it.
    """

    out: Path

    def page(self, template: str, path: str, root: str, **values: object) -> Path: ...
