"""`plylab paper list | run | report`: one command per table and figure of the two seed papers."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import typer

from ..db import DEFAULT_STORE
from ..errors import UserError
from ..printable import printable
from . import options as o
from ._study import naming_only

if TYPE_CHECKING:
    from ..paper.plan import Options
    from ..paper.protocols import Protocol


def quote(text: str) -> str:
    """A name or path as a shell reads it back (quoted where needed), inert on a terminal."""
    return printable(shlex.quote(text))


paper_app = typer.Typer(
    help="Reproduce the papers: every table and figure of PlyBench/REAPER and of the Clue study, "
    "with the published numbers beside yours.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    app.add_typer(paper_app, name="paper")


def _protocol_line(p: Protocol) -> dict[str, str]:
    if p.kind == "learn":
        scale = f"{p.runs} runs x ({p.eval_games} eval + {p.epochs} x ({p.learn_games} learn + {p.eval_games} eval))"
        who = ", ".join(a.label for a in p.agents)
    elif p.kind == "clue":
        scale = f"{p.games_per_matchup} games per condition, 6 seats ({p.models} models x 3)"
        who = ", ".join(p.conditions)
    else:
        scale = f"{p.games_per_matchup} games per matchup" + (
            ", sides switched after half" if p.switch_sides else ""
        )
        who = ", ".join(dict.fromkeys(f for _, f, _, _ in p.matchups()))
    return {
        "name": p.name,
        "study": p.study,
        "games": ", ".join(p.games) or "clue",
        "opponents": ", ".join(p.opponents) or "-",
        "formulations / agents / conditions": who,
        "effort": ", ".join(p.efforts) or "-",
        "size": scale,
        "reads": p.source,
        "cite": p.cite[0],
    }


@paper_app.command("list")
def list_(fmt: Literal["table", "json", "markdown"] = typer.Option("table", "--format")) -> None:
    """Every reproducible table and figure with its protocol (games, opponents, formulations, effort, size)."""
    from ..analysis.tables import format_grid
    from ..paper.protocols import PROTOCOLS

    if fmt == "json":
        typer.echo(json.dumps([p.describe() for p in PROTOCOLS.values()], indent=2))
        return
    lines = [_protocol_line(p) for p in PROTOCOLS.values()]
    header = list(lines[0])
    typer.echo(format_grid(header, [[d[h] for h in header] for d in lines], fmt))
    from ..paper.cites import CITE_KEY

    typer.echo(CITE_KEY, err=True)  # the cite column's references, explained once (stderr: table stays clean)


@paper_app.command("run")
@o.grouped
def run(
    table: str = typer.Argument(
        ..., help="table2 ... table14, fig4, fig5, fig6, clue-accuracy ... (see `plylab paper list`)"
    ),
    model: list[str] | None = typer.Option(
        None,
        "--model",
        "-m",
        help="model name, e.g. local or openai/gpt-5-nano (Clue: once per model family)",
    ),
    games: int | None = typer.Option(None, "--games", help="games per matchup (default: the paper's)"),
    player_options: str | None = typer.Option(
        None,
        "--player-options",
        help="extra spec keys for the model player, e.g. output=enum (llm) or answer=legal (reaper/cbr/memento): "
        "constrained decoding for small local models; a deviation the report names",
    ),
    references: bool = typer.Option(
        False,
        "--references",
        help="also play the classic reference rows (the paper's MCTS vs Random and Optimal; Optimal vs the "
        "table's opponents); without --model, only those rows are played",
    ),
    runs: int | None = typer.Option(None, "--runs", help="figures: independent runs (paper: 10)"),
    epochs: int | None = typer.Option(None, "--epochs", help="figures: learning phases per run (paper: 5)"),
    learn_games: int | None = typer.Option(
        None, "--learn-games", help="figures: games per learning phase (paper: 20)"
    ),
    eval_games: int | None = typer.Option(
        None, "--eval-games", help="figures: games per evaluation (paper: 50)"
    ),
    seed: o.Seed = 0,
    run_name: str | None = typer.Option(
        None, "--run", help="run name (default paper/<table>/<model>; give it to `paper report --run` too)"
    ),
    *,
    playing: o.Playing,
    limits: o.Limits,  # tables only
) -> None:
    """Play exactly the paper's protocol for TABLE into the store; re-running the same command resumes it."""
    from ..paper.plan import Options
    from ..paper.protocols import get_protocol

    p = get_protocol(table)
    models = list(model or [])
    sizes = (runs, epochs, learn_games, eval_games)
    _check(p, table, models, references, sizes, limits)
    with naming_only(playing.dry_run):  # a dry run names its models: no API key read, no server asked
        if p.kind == "clue":
            if player_options:
                raise UserError(
                    "--player-options is for PlyBench tables and figures; the Clue study seats take none"
                )
            _run_clue(p, models, games, seed, playing)
            return
        if len(models) > 1:
            raise UserError(f"{table} takes one --model per run (got {len(models)})")
        opts = Options(models[0] if models else "", games, seed, player_options, *sizes)
        if p.kind == "learn":
            _run_learn(p, opts, playing, run_name)
            return
        _run_tables(p, opts, references, playing, run_name, limits)


def _check(
    p: Protocol,
    table: str,
    models: list[str],
    references: bool,
    sizes: tuple[int | None, ...],
    limits: o.Limits,
) -> None:
    """The flags `paper run TABLE` takes: what the protocol's kind (a table, a figure, Clue) plays."""
    if any(not m.strip() for m in models):
        raise UserError("--model is empty; give a model name, e.g. local or openai/gpt-5-nano")
    if p.kind != "play" and references:
        raise UserError(f"--references is for tables; {table} has no classic reference rows")
    if not models and not references:
        raise UserError(
            "give --model M (e.g. local), or --references for the classic reference rows of a table"
        )
    if p.kind != "learn" and any(v is not None for v in sizes):
        raise UserError(
            f"--runs/--epochs/--learn-games/--eval-games are for figures (fig4, fig5, fig6), not {table}"
        )
    if limits.given and p.kind != "play":
        raise UserError(
            f"--max-calls/--max-tokens/--max-cost apply to table runs; {table} is not one (cap it with --games/--runs)"
        )


def _run_tables(
    p: Protocol, opts: Options, references: bool, playing: o.Playing, run_name: str | None, limits: o.Limits
) -> None:
    from ..harness.runner import PlanStudy
    from ..paper.plan import play_plan, reference_plan
    from ..paper.published import token_figures

    plans = []
    if opts.model:
        plan = play_plan(p, opts)
        if run_name:
            plan.name = run_name
        plans.append((plan, True))
    if references:
        plans.append((reference_plan(p, opts.games, opts.seed), False))
    for plan, budgeted in plans:  # a fresh budget per run: each run spends its own
        playing.play(PlanStudy(plan, limits.budget() if budgeted else None, paper=token_figures(p.name)))
    if playing.dry_run:
        return
    dev = opts.deviations(p)
    typer.echo(
        f"report: plylab paper report {p.name} --store {quote(str(playing.store))}"
        + (f" --run {quote(run_name)}" if run_name else "")
        + (f"  (deviations: {'; '.join(dev)})" if dev else "")
    )


def _run_learn(p: Protocol, opts: Options, playing: o.Playing, run_name: str | None) -> None:
    from dataclasses import replace

    from ..paper.plan import learning_experiments

    for exp in learning_experiments(p, opts):
        if run_name:
            exp = replace(exp, name=f"{run_name}/{(exp.name or '').rsplit('/', 1)[-1]}")
        learner = playing.learner(exp)
        playing.play(learner, learner.exec_options)
    if playing.dry_run:
        return
    typer.echo(
        f"report: plylab paper report {p.name} --store {quote(str(playing.store))} --plot figures/"
        + (f" --run {quote(run_name)}" if run_name else "")
    )


def _run_clue(p: Protocol, models: list[str], games: int | None, seed: int, playing: o.Playing) -> None:
    from ..clue.study import ClueStudy
    from ..paper.plan import clue_plans

    for plan in clue_plans(p, models, games, seed, playing.concurrency):
        playing.play(ClueStudy(plan))  # Ctrl-C in one condition ends the command (130): the next never starts
    if playing.dry_run:
        return
    typer.echo(f"report: plylab paper report {p.name} --store {quote(str(playing.store))}")


@paper_app.command("report")
def report(
    table: str = typer.Argument(..., help="a name from `plylab paper list`"),
    store: o.Store = DEFAULT_STORE,
    fmt: str | None = typer.Option(
        None,
        "--format",
        help="markdown | csv | latex | json | html | table (default: table at a terminal, as `plylab report`; "
        "markdown when piped or with --out)",
    ),
    run_name: list[str] | None = typer.Option(
        None, "--run", help="read these runs (default: paper/<table>/*)"
    ),
    compare_to: str | None = typer.Option(
        None,
        "--compare-to",
        help="the paper's row to set beside yours, e.g. 'GPT-5 nano' (default: same model name)",
    ),
    plot: Path | None = typer.Option(
        None,
        "--plot",
        help="figures, and Clue's clue-accuracy / clue-knowledge / clue-delay (the Clue paper's Figures 3, 5, 6): "
        "write the plot (PNG + SVG) into this folder",
    ),
    out: Path | None = typer.Option(None, "--out", help="write the report to this file instead of stdout"),
) -> None:
    """TABLE in the paper's layout, the published numbers beside the reproduced ones (≠: 95% intervals disjoint);
    without a store, or with no run for TABLE in it, the paper's numbers alone."""
    from ..paper.report import report as build
    from ..render.terminal import terminal_default

    fmt = fmt or terminal_default(out)
    text, files = build(
        store, table, fmt, runs=list(run_name or []) or None, compare_to=compare_to, plot_dir=plot
    )
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
        typer.echo(f"wrote {printable(str(out))}", err=True)
    else:
        typer.echo(text, nl=False)
        from ..paper.cites import CITE_KEY

        if fmt in ("markdown", "table") and re.search(r"\b00[03] (l\.|§)", text):
            typer.echo(CITE_KEY, err=True)  # the seed references above, explained once
    for f in files:
        typer.echo(f"wrote {printable(str(f))}", err=True)
