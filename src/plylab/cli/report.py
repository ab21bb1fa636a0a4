"""`plylab report`: the paper's tables from a store, learning curves, LaTeX and the HTML site."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..analysis.tables import BY, FORMATS, TABLES, render
from ..errors import UserError
from ..harness.store import DEFAULT_STORE, Store


def report(
    store: Path = typer.Option(DEFAULT_STORE, "--store", help="SQLite results store"),
    run: Optional[str] = typer.Option(None, "--run", help="only this run"),
    fmt: str = typer.Option("table", "--format", help=f"one of: {', '.join(FORMATS)}"),
    table: str = typer.Option("matchups", "--table", help=f"one of: {', '.join(TABLES)}"),
    by: str = typer.Option("opponent", "--by", help=f"pivot columns: {', '.join(BY)}"),
    learning: bool = typer.Option(False, "--learning", help="learning-run checkpoints (plylab learn)"),
    html: Optional[Path] = typer.Option(None, "--html", help="write a self-contained HTML site here"),
    latex: Optional[Path] = typer.Option(None, "--latex", help="write the paper's tables as LaTeX here"),
) -> None:
    """Per-matchup outcomes, optimality with Wilson and game-clustered intervals, usage and tokens."""
    if fmt not in FORMATS:
        raise UserError(f"unknown format '{fmt}'; accepted: {', '.join(FORMATS)}")
    Store(store, create=False).close()  # one clear line if the store is missing or unreadable
    if html is not None or latex is not None:
        if html is not None:
            from ..reports.site import write_site

            print(f"wrote {write_site(store, run, html)}")
        if latex is not None:
            from ..reports.latex import write_latex

            print(f"wrote {write_latex(store, run, latex)}")
        return
    if learning:
        from ..analysis.learning import learning_report

        print(learning_report(store, run, fmt))
        return
    from ..analysis.metrics import matchup_rows  # scipy is slow to import: only when reporting

    s = Store(store, create=False)
    try:
        rows = matchup_rows(s, run)
    finally:
        s.close()
    print(render(rows, fmt, table, by))


def register(app: typer.Typer) -> None:
    app.command("report")(report)
