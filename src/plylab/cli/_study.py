"""How every run-playing command plays a study: the forecast first, then the driver, one summary
line (also under --quiet) and exit 130 on a signal; `--dry-run` stops after the forecast."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from ..harness.backends import ExecOptions
    from ..harness.driver import RunSummary
    from ..harness.study import Job, Result, StoreT, Study


def finish(summary: RunSummary) -> None:
    """Print the summary line and stop with 130 when the run was interrupted, so a command that
    plays several studies (`paper run`) never starts the next one after Ctrl-C."""
    typer.echo(summary.line())
    if summary.status == "interrupted":
        raise typer.Exit(130)


def play(
    study: Study[StoreT, Job, Result],
    store: Path,
    *,
    options: ExecOptions,
    backend: str = "local",
    quiet: bool = False,
    dry_run: bool = False,
    stderr: bool = False,
) -> None:
    """The run's first line says what it will play and ask of models; then it plays (not when dry)."""
    from ..harness.driver import run_study

    line = study.forecast(store).line()
    if dry_run:
        typer.echo(line)
        return
    summary = run_study(
        study,
        store,
        backend=backend,
        options=options,
        progress=not quiet,
        stderr=stderr,
        announce=lambda: typer.echo(line, err=True),
    )
    finish(summary)
