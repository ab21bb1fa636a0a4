"""`plylab clue run | study | report`: the six-player text Clue benchmark."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import typer

from ..db import DEFAULT_STORE, stores_beside
from ..errors import UserError
from ..printable import printable
from . import options as o
from ._study import naming_only, play

if TYPE_CHECKING:
    from ..clue.study import RunPlan

clue_app = typer.Typer(
    help="Clue: LLMs and bots deduce the envelope; scored against a SAT oracle.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    app.add_typer(clue_app, name="clue")


def _run(plan: RunPlan, store: Path, quiet: bool, backend: str, address: str | None, dry_run: bool) -> None:
    from ..clue.study import ClueStudy
    from ..harness.driver import exec_options

    options = exec_options(store, concurrency=plan.concurrency, address=address)
    with naming_only(dry_run):  # a dry run names its models: no API key read, no server asked
        study = ClueStudy(plan)
    play(study, store, options=options, backend=backend, quiet=quiet, dry_run=dry_run, stderr=True)


@clue_app.command("run")
def run(
    player: list[str] | None = typer.Option(
        None, "--player", "-p", help="player spec, one per seat (3 to 6)"
    ),
    games: int = typer.Option(1, "--games", "-n", help="number of games"),
    seed: o.Seed = 0,
    store: o.Store = DEFAULT_STORE,
    turn_limit: int = typer.Option(
        150, "--turn-limit", help="the game ends without a winner after this many turns"
    ),
    concurrency: o.Concurrency = 1,
    parallel: o.Parallel = None,
    backend: o.Backend = "local",
    address: o.Address = None,
    quiet: o.Quiet = False,
    dry_run: o.DryRun = False,
) -> None:
    """Play N games with the given seats (seating shuffled per game); resumable."""
    from ..clue.study import RunPlan

    plan = RunPlan(list(player or []), games, seed, turn_limit, "custom", parallel or concurrency)
    _run(plan, store, quiet, backend, address, dry_run)


@clue_app.command("study")
def study(
    condition: str = typer.Option(..., "--condition", help="baseline | matrix | mixed"),
    model: list[str] | None = typer.Option(
        None, "--model", "-m", help="model name; three seats per model (1 or 2)"
    ),
    games: int = typer.Option(6, "--games", "-n", help="number of games"),
    seed: o.Seed = 0,
    store: o.Store = DEFAULT_STORE,
    turn_limit: int = typer.Option(
        150, "--turn-limit", help="the game ends without a winner after this many turns"
    ),
    temperature: float | None = typer.Option(
        None, "--temperature", help="sampling temperature of every LLM seat (default: the model's)"
    ),
    max_tokens: int | None = typer.Option(
        None, "--max-tokens", help="most tokens per reply of every LLM seat (default: the model's)"
    ),
    concurrency: o.Concurrency = 1,
    parallel: o.Parallel = None,
    backend: o.Backend = "local",
    address: o.Address = None,
    quiet: o.Quiet = False,
    dry_run: o.DryRun = False,
) -> None:
    """The paper's study: per model three LLM seats, all baseline, all matrix, or mixed (1 matrix + 2 baseline)."""
    from ..clue.study import RunPlan, study_specs

    specs = study_specs(condition, list(model or []), temperature=temperature, max_tokens=max_tokens)
    _run(
        RunPlan(specs, games, seed, turn_limit, condition, parallel or concurrency),
        store,
        quiet,
        backend,
        address,
        dry_run,
    )


@clue_app.command("report")
def report(
    store: o.Store = DEFAULT_STORE,
    fmt: Literal["json", "markdown", "table"] | None = typer.Option(
        None,
        "--format",
        help="json | markdown | table (default: table at a terminal, as `plylab report`; markdown when piped)",
    ),
    plot: Path | None = typer.Option(
        None, "--plot", help="directory for the knowledge-curve and delay figures"
    ),
) -> None:
    """Accuracy, identification, deductions, knowledge curves and delays per condition and player."""
    from ..clue.knowledge_charts import write_plots
    from ..clue.metrics import report as build
    from ..clue.metrics import to_markdown
    from ..clue.records import ClueRecords

    if not store.exists():
        raise UserError(f"store '{store}' does not exist; {stores_beside(store, 'plylab clue run ...')}")
    clue_store = ClueRecords(store)
    try:
        data = build(clue_store)
    finally:
        clue_store.close()
    if not data.groups:
        raise UserError(f"no Clue games in store '{store}'")
    from ..render.terminal import markdown_as_terminal, terminal_default

    chosen = fmt or terminal_default()
    text = to_markdown(data)
    typer.echo(
        json.dumps(data.to_json(), indent=2)
        if chosen == "json"
        else markdown_as_terminal(text)
        if chosen == "table"
        else text
    )
    if plot is not None:
        for path in write_plots(data, plot):
            typer.echo(f"wrote {printable(str(path))}", err=True)
