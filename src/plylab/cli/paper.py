"""`plylab paper list | run | report`: one command per table and figure of the two seed papers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..errors import UserError
from ..harness.store import DEFAULT_STORE

paper_app = typer.Typer(
    help="Reproduce the papers: every table and figure of PlyBench/REAPER and of the Clue study, "
    "with the published numbers beside yours.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    app.add_typer(paper_app, name="paper")


def _protocol_line(p) -> dict[str, str]:  # type: ignore[no-untyped-def]
    if p.kind == "learn":
        scale = f"{p.runs} runs x ({p.eval_games} eval + {p.epochs} x ({p.learn_games} learn + {p.eval_games} eval))"
        who = ", ".join(a.label for a in p.agents)
    elif p.kind == "clue":
        scale = f"{p.games_per_matchup} games per condition, 6 seats ({p.models} models x 3)"
        who = ", ".join(p.conditions)
    else:
        scale = f"{p.games_per_matchup} games per matchup" + (", sides switched after half" if p.switch_sides else "")
        who = ", ".join(dict.fromkeys(f for _, f, _, _ in p.matchups()))
    return {
        "name": p.name, "study": p.study, "games": ", ".join(p.games) or "clue",
        "opponents": ", ".join(p.opponents) or "-", "formulations / agents / conditions": who,
        "effort": ", ".join(p.efforts) or "-", "size": scale, "reads": p.source, "cite": p.cite[0],
    }


@paper_app.command("list")
def list_(fmt: str = typer.Option("table", "--format", help="table | json")) -> None:
    """Every reproducible table and figure with its protocol (games, opponents, formulations, effort, size)."""
    from ..analysis.tables import format_grid
    from ..paper.protocols import PROTOCOLS

    if fmt not in ("table", "json", "markdown"):
        raise UserError(f"unknown format '{fmt}'; accepted: table, json, markdown")
    if fmt == "json":
        typer.echo(json.dumps([p.describe() for p in PROTOCOLS.values()], indent=2))
        return
    lines = [_protocol_line(p) for p in PROTOCOLS.values()]
    header = list(lines[0])
    typer.echo(format_grid(header, [[d[h] for h in header] for d in lines], fmt))


@paper_app.command("run")
def run(
    table: str = typer.Argument(..., help="table2 ... table14, fig4, fig5, fig6, clue-accuracy ... (see `plylab paper list`)"),
    model: Optional[list[str]] = typer.Option(None, "--model", "-m", help="model name, e.g. local or openai/gpt-5-nano (Clue: once per model family)"),
    games: Optional[int] = typer.Option(None, "--games", help="games per matchup (default: the paper's)"),
    player_options: Optional[str] = typer.Option(
        None, "--player-options",
        help="extra spec keys for the model player, e.g. output=enum (llm) or answer=legal (reaper/cbr/memento): "
        "constrained decoding for small local models; a deviation the report names",
    ),
    references: bool = typer.Option(False, "--references", help="also play the classic reference rows (the paper's MCTS vs Random and Optimal; Optimal vs the table's opponents)"),
    runs: Optional[int] = typer.Option(None, "--runs", help="figures: independent runs (paper: 10)"),
    epochs: Optional[int] = typer.Option(None, "--epochs", help="figures: learning phases per run (paper: 5)"),
    learn_games: Optional[int] = typer.Option(None, "--learn-games", help="figures: games per learning phase (paper: 20)"),
    eval_games: Optional[int] = typer.Option(None, "--eval-games", help="figures: games per evaluation (paper: 50)"),
    seed: int = typer.Option(0, "--seed", help="run seed"),
    store: Path = typer.Option(DEFAULT_STORE, "--store", help="SQLite results store"),
    run_name: Optional[str] = typer.Option(None, "--run", help="run name (default paper/<table>/<model>; give it to `paper report --run` too)"),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="games in flight at once"),
    backend: str = typer.Option("local", "--backend", help="executor backend: local or ray"),
    address: Optional[str] = typer.Option(None, "--address", help="Ray cluster to join (ray backend)"),
    max_calls: Optional[int] = typer.Option(None, "--max-calls", help="tables: stop starting games after N new model calls"),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", help="... after N new tokens (input + output)"),
    max_cost: Optional[float] = typer.Option(None, "--max-cost", help="... after USD dollars of new calls"),
    quiet: bool = typer.Option(False, "--quiet", help="no progress bar"),
) -> None:
    """Play exactly the paper's protocol for TABLE into the store; re-running the same command resumes it."""
    from ..paper.plan import Options
    from ..paper.protocols import get_protocol

    p = get_protocol(table)
    models = list(model or [])
    if address is not None and backend != "ray":
        raise UserError("--address is for the ray backend (add --backend ray)")
    if p.kind != "play" and references:
        raise UserError(f"--references is for tables; {table} has no classic reference rows")
    if not models and not references:
        raise UserError("give --model M (e.g. local), or --references for the classic reference rows of a table")
    if p.kind != "learn" and any(v is not None for v in (runs, epochs, learn_games, eval_games)):
        raise UserError(f"--runs/--epochs/--learn-games/--eval-games are for figures (fig4, fig5, fig6), not {table}")
    budgeted = any(v is not None for v in (max_calls, max_tokens, max_cost))
    if budgeted and p.kind != "play":
        raise UserError(f"--max-calls/--max-tokens/--max-cost apply to table runs; {table} is not one (cap it with --games/--runs)")
    if p.kind == "clue":
        _run_clue(p, models, games, seed, store, concurrency, backend, address, quiet, player_options)
        return
    if len(models) > 1:
        raise UserError(f"{table} takes one --model per run (got {len(models)})")
    opts = Options(models[0] if models else "", games, seed, player_options, runs, epochs, learn_games, eval_games)
    if p.kind == "learn":
        _run_learn(p, opts, store, concurrency, backend, address, quiet, run_name)
        return
    _run_tables(p, opts, references, store, run_name, concurrency, backend, address, quiet,
                (max_calls, max_tokens, max_cost))


def _run_tables(p, opts, references, store, run_name, concurrency, backend, address, quiet, limits) -> None:  # type: ignore[no-untyped-def]
    from ..harness.backends import ExecOptions
    from ..harness.budget import Budget
    from ..harness.runner import run_plan
    from ..paper.plan import play_plan, reference_plan

    plans = []
    if opts.model:
        plan = play_plan(p, opts)
        if run_name:
            plan.name = run_name
        plans.append((plan, True))
    if references:
        plans.append((reference_plan(p, opts.games, opts.seed), False))
    for plan, budgeted in plans:
        budget = Budget(max_calls=limits[0], max_tokens=limits[1], max_cost=limits[2])
        options = ExecOptions(concurrency=concurrency, workers=0, address=address, run_dir=str(store.parent))
        summary = run_plan(plan, store, backend=backend, options=options, progress=not quiet,
                           budget=budget if budgeted and budget.limited else None)
        typer.echo(summary.line())
        if summary.status == "interrupted":
            raise typer.Exit(130)
    dev = opts.deviations(p)
    typer.echo(f"report: plylab paper report {p.name} --store {store}" + (f" --run {run_name}" if run_name else "")
               + (f"  (deviations: {'; '.join(dev)})" if dev else ""))


def _run_learn(p, opts, store, concurrency, backend, address, quiet, run_name) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from ..learning import Learner
    from ..paper.plan import learning_experiments

    for exp in learning_experiments(p, opts):
        if run_name:
            exp = replace(exp, name=f"{run_name}/{exp.name.rsplit('/', 1)[-1]}")  # type: ignore[type-var]
        summary = Learner(exp, store, concurrency=concurrency, progress=not quiet, backend=backend,  # type: ignore[arg-type]
                          address=address).run()
        typer.echo(summary.line())
        if summary.status == "interrupted":
            raise typer.Exit(130)
    typer.echo(f"report: plylab paper report {p.name} --store {store} --plot figures/"
               + (f" --run {run_name}" if run_name else ""))


def _run_clue(p, models, games, seed, store, concurrency, backend, address, quiet, player_options) -> None:  # type: ignore[no-untyped-def]
    import inspect

    from ..clue.study import run_plan as clue_run
    from ..paper.plan import clue_plans

    if player_options:
        raise UserError("--player-options is for PlyBench tables and figures; the Clue study seats take none")
    for plan in clue_plans(p, models, games, seed, concurrency):
        outcome = clue_run(plan, store, progress=not quiet, backend=backend, address=address)  # type: ignore[arg-type]
        if inspect.isawaitable(outcome):  # the driver was async before it became one for every game kind
            import asyncio

            outcome = asyncio.run(outcome)  # type: ignore[arg-type]
        typer.echo(f"clue {plan.condition}: played {outcome.played}, {outcome.skipped} already stored ({outcome.key})")  # type: ignore[attr-defined]
    typer.echo(f"report: plylab paper report {p.name} --store {store}")


@paper_app.command("report")
def report(
    table: str = typer.Argument(..., help="a name from `plylab paper list`"),
    store: Path = typer.Option(DEFAULT_STORE, "--store", help="SQLite results store"),
    fmt: str = typer.Option("markdown", "--format", help="markdown | csv | latex | json | html | table"),
    run_name: Optional[list[str]] = typer.Option(None, "--run", help="read these runs (default: paper/<table>/*)"),
    compare_to: Optional[str] = typer.Option(None, "--compare-to", help="the paper's row to set beside yours, e.g. 'GPT-5 nano' (default: same model name)"),
    plot: Optional[Path] = typer.Option(None, "--plot", help="figures: write the plot (PNG + SVG) into this folder"),
    out: Optional[Path] = typer.Option(None, "--out", help="write the report to this file instead of stdout"),
) -> None:
    """TABLE in the paper's layout, the published numbers beside the reproduced ones (≠: 95% intervals disjoint)."""
    from ..paper.report import report as build

    text, files = build(store, table, fmt, runs=list(run_name or []) or None, compare_to=compare_to, plot_dir=plot)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
        typer.echo(f"wrote {out}", err=True)
    else:
        typer.echo(text, nl=False)
    for f in files:
        typer.echo(f"wrote {f}", err=True)
