"""`plylab suite build | show | calibrate | run | report`: fixed positions with their truth, one call each."""

from __future__ import annotations

from pathlib import Path

import typer

from ..db import DEFAULT_STORE
from ..errors import UserError
from ..words import count
from . import options as o
from ._study import say

suite_app = typer.Typer(
    help="Suites: fixed positions with every legal move's value, answered one call each by any player.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

FORMATS_HELP = "table | markdown | csv | latex | json | html"


def register(app: typer.Typer) -> None:
    app.add_typer(suite_app, name="suite")


@suite_app.command("build")
def build(
    name: str = typer.Argument(..., help="the suite's name (written to suites/NAME.jsonl)"),
    game: str = typer.Option(
        ...,
        "--game",
        "-g",
        help="game with a ground truth (exact, equilibrium or engine), or clue (deduction snapshots)",
    ),
    positions: int = typer.Option(100, "--positions", "-n", help="informative positions to draw"),
    sample: str | None = typer.Option(
        None,
        "--sample",
        help="sampler: a classic player spec (random, the default; mcts:sims=100, optimal:epsilon=0.3); "
        "for clue a classic Clue player (clue-matrix, the default; clue-oracle, clue-random)",
    ),
    from_run: str | None = typer.Option(
        None, "--from", help="take positions from a stored run's games (its name; the store is --store)"
    ),
    from_puzzles: Path | None = typer.Option(
        None, "--from-puzzles", help="chess puzzles in lichess's CSV format (PuzzleId,FEN,Moves,Rating,...)"
    ),
    store: o.Store = DEFAULT_STORE,
    seed: o.Seed = 0,
    formulation: str = typer.Option(
        "standard", "--formulation", "-f", help="formulation the suite is asked in"
    ),
    limit: str = typer.Option(
        "", "--limit", help="an engine's search limit at build time (chess), e.g. nodes=1000000"
    ),
    margin: float | None = typer.Option(
        None,
        "--margin",
        help="lichess-style selection: one best move, better than the second by at least M (a number, 0 or more) "
        "on the graded scale",
    ),
    out: Path | None = typer.Option(None, "--out", help="file to write (default suites/NAME.jsonl)"),
) -> None:
    """Draw informative positions of a game with a sampler, grade every legal move, write the suite."""
    from ..suites.file import SUITES_DIR, check_name
    from ..suites.kinds import kind_of

    check_name(name)
    suite = kind_of(game).build(
        name,
        game,
        positions,
        sampler=sample,
        seed=seed,
        formulation=formulation,
        limit=limit,
        from_run=from_run,
        store=store,
        from_puzzles=from_puzzles,
        margin=margin,
    )
    path = out if out is not None else SUITES_DIR / f"{name}.jsonl"
    suite.write(path)
    say(
        f"suite '{name}': {count(len(suite.positions), 'position')} of {suite.game} written to {path} ({suite.hash})"
    )


@suite_app.command("show")
def show(suite: str = typer.Argument(..., help="suite name (suites/NAME.jsonl) or path")) -> None:
    """Print a suite's size, hash, source, oracle and difficulty histogram."""
    from ..suites.file import read_suite
    from ..suites.kinds import kind_of

    s, path = read_suite(suite)
    truth = s.truth
    lines = [
        f"suite '{s.name}' ({path}): {len(s.positions)} positions of {s.game}, formulation {s.formulation}",
        f"hash: {s.hash}",
        f"source: stored run '{s.sampler.removeprefix('run:')}', shuffled with seed {s.seed}"
        if s.sampler.startswith("run:")
        else f"source: lichess puzzles from {s.sampler.removeprefix('puzzles:')}"
        if s.sampler.startswith("puzzles:")
        else f"source: sampler '{s.sampler}', seed {s.seed}",
        f"oracle: {truth.get('kind')} — {truth.get('name')}"
        + (f", limit {truth['limit']}" if truth.get("limit") else "")
        + (f", margin {truth['margin']}" if "margin" in truth else "")
        + f"; graded by: {'; '.join(truth.get('sources') or [])}",
    ]
    from ..suites.calibration import show_lines

    for line in [*lines, *kind_of(s.game).difficulty(s), *show_lines(s)]:
        say(line)


@suite_app.command("calibrate")
def calibrate(
    suite: str = typer.Argument(..., help="suite name (suites/NAME.jsonl) or path"),
    ladder: list[str] = typer.Option(
        ..., "--ladder", help="a reference player spec (repeat: random, mcts:sims=100, optimal...)"
    ),
    answers: int = typer.Option(5, "--answers", help="answers per position and ladder player"),
    seed: o.Seed = 0,
    out: Path | None = typer.Option(None, "--out", help="file to write (default: the suite's own file)"),
) -> None:
    """Answer every position with a ladder of reference players and write their 2PL fit into the suite."""
    from ..suites.calibration import calibrate_file

    for line in calibrate_file(suite, ladder, answers, seed, out):
        say(line)


@suite_app.command("run")
@o.grouped
def run(
    suite: str = typer.Argument(..., help="suite name (suites/NAME.jsonl) or path"),
    player: list[str] | None = typer.Option(
        None, "--player", "-p", help="player spec (repeat for more players)"
    ),
    until: str | None = typer.Option(
        None, "--until", help="width=W: stop once every player's optimal-rate interval is narrower than W"
    ),
    repeats: int = typer.Option(
        1,
        "--repeats",
        help="answers per position and player, each with its own seed (for players that sample: "
        "an LLM at temperature, epsilon-optimal, MCTS); 1 is one call per position",
    ),
    *,
    playing: o.Playing,
) -> None:
    """Ask every player every position, one call each; cached, and resumable by the same command."""
    from ..suites.file import read_suite
    from ..suites.study import SuiteStudy

    if not player:
        raise UserError("suite run needs at least one --player SPEC (e.g. --player mcts:sims=100)")
    from ..suites.until import parse_until

    width = None if until is None else parse_until(until)
    s, _ = read_suite(suite)
    study = SuiteStudy(s, list(player), until=width, repeats=repeats)
    playing.play(study, stderr=True)


@suite_app.command("report")
def report(
    store: o.Store = DEFAULT_STORE,
    fmt: str = typer.Option("table", "--format", help=FORMATS_HELP),
    suite: str | None = typer.Option(None, "--suite", help="only this suite's runs (its name)"),
    from_inspect: Path | None = typer.Option(
        None,
        "--from-inspect",
        help="read the answers from the logs of inspect eval plylab/suite in this folder",
    ),
) -> None:
    """Per player: optimal rate, loss, skill above chance, bands; per pair: paired tests."""
    from ..render.table import FORMATS, Table, render
    from ..suites.kinds import kind_of, kinds
    from ..suites.report import pairs_table, read_results

    if fmt not in FORMATS:
        raise UserError(f"unknown format '{fmt}'; accepted: {', '.join(FORMATS)}")
    if from_inspect is None:
        results = read_results(Path(store), suite)
    else:
        from ..suites.report import SuiteResults
        from ..tasks.suite import results_from_logs

        read = results_from_logs(from_inspect)
        results = SuiteResults(tuple(r for r in read.runs if suite is None or r[0].suite == suite))
        if not results.runs:
            raise UserError(f"no logs of suite '{suite}' in {from_inspect}")
    present = {kind_of(run.game).name for run, _ in results.runs}
    named: dict[str, Table] = {}
    for kind in kinds():  # each kind of suite the results hold: its own tables, in the kinds' order
        if kind.name in present:
            named |= kind.tables(results)
    named["pairs"] = pairs_table(results)
    if fmt == "json":
        import json

        typer.echo(json.dumps({k: t.to_json() for k, t in named.items()}, indent=2))
        return
    typer.echo("\n\n".join(render(t, fmt) for t in named.values()))
