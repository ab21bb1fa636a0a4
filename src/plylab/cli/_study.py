"""How every run-playing command plays a study: the forecast first, then the driver, one summary
line (also under --quiet) and exit 130 on a signal; `--dry-run` stops after the forecast."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from ..harness.backends import ExecOptions
    from ..harness.driver import RunSummary
    from ..harness.study import Job, Result, StoreT, Study


def say(line: str, *, err: bool = False) -> None:
    """Every line a run-playing command writes, under one rule: printable (a run name's escape
    sequences, CR/LF and direction overrides shown as escapes, never acted on by the terminal)."""
    from ..printable import printable

    typer.echo(printable(line), err=err)


def naming_only(dry_run: bool) -> AbstractContextManager[None]:
    """Where a command checks its players (building a plan, an experiment): under `--dry-run` a hosted
    model is named and never built, so a dry run needs no API key and contacts no server."""
    if not dry_run:
        return nullcontext()
    from ..models.model import naming_only as models_named

    return models_named()


def finish(summary: RunSummary) -> None:
    """Print the summary line and stop with 130 when the run was interrupted, so a command that
    plays several studies (`paper run`) never starts the next one after Ctrl-C."""
    say(summary.line())
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

    forecast = study.forecast(store)
    line = forecast.line()
    if dry_run:
        say(line)
        return
    summary = run_study(
        study,
        store,
        backend=backend,
        options=options,
        progress=not quiet,
        stderr=stderr,
        announce=lambda: say(line, err=True),
        unit=forecast.unit,
    )
    finish(summary)
