"""`plylab run`: play a matchup or a grid plan into the store; resumable."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ..errors import UserError
from . import options as o
from ._study import naming_only

if TYPE_CHECKING:
    from ..harness.plan import Plan


@o.grouped
def run(
    game: str | None = typer.Option(None, "--game", help="game name (see `plylab games`)"),
    formulation: str = typer.Option("standard", "--formulation", help="rule formulation of the game"),
    player: str | None = typer.Option(None, "--player", help="player spec, e.g. mcts:sims=1000"),
    opponent: str | None = typer.Option(None, "--opponent", help="opponent spec, e.g. optimal"),
    games: int | None = typer.Option(
        None, "--games", help="games per matchup (default 100, the paper's; sides switch after half)"
    ),
    seed: int | None = typer.Option(None, "--seed", help="run seed (default 0)"),
    run_name: str | None = typer.Option(None, "--run", help="run name (default: derived from the plan)"),
    old_name: o.OldName = None,
    parallel: o.Parallel = None,
    workers: int | None = typer.Option(
        None,
        "--workers",
        min=1,
        help="worker processes for CPU-bound games (local; default 1), or CPU slots (ray; default all)",
    ),
    config: Path | None = typer.Option(
        None, "--config", help="YAML grid plan (games x formulations x players x opponents)"
    ),
    score: str = typer.Option(
        "on",
        "--score",
        help="on: score moves against the game's oracle (exact, or an engine for chess); off: never; "
        "nodes=N / depth=D: the engine's search limit per position (default nodes=20000); backgammon: "
        "plies=0|1|2, gnubg's level (default 2, its analysis level)",
    ),
    *,
    playing: o.Playing,
    limits: o.Limits,
) -> None:
    """Play games and store every move; re-running the same command resumes where it stopped.

    With a budget (--max-calls/--max-tokens/--max-cost; cached replies are free), no new game starts
    once the next one would exceed it, games in flight finish, and the run is marked stopped; the
    same command with a larger budget resumes it. Ctrl-C or SIGTERM stops at once, keeping every saved game.
    """
    from ..harness.grading import oracle_games, scored  # here, not above: `plylab --help` stays fast
    from ..harness.runner import PlanStudy

    if parallel is not None:
        playing = dataclasses.replace(playing, concurrency=parallel)
    named = {"--game": game, "--player": player, "--opponent": opponent}
    with naming_only(playing.dry_run):  # a dry run names its models: no API key read, no server asked
        plan = _plan(config, named, formulation, games, seed, run_name or old_name)
    plan.matchups = scored(plan.matchups, score)  # carried by each matchup, so stored with the run's plan
    if plan.interactive:  # a person types the moves: no bar drawn over the prompt, one board at a time
        playing = dataclasses.replace(playing, quiet=True, concurrency=1)
    study = PlanStudy(plan, limits.budget())
    if not playing.dry_run:  # an equilibrium solved now is said and shown, not hidden behind the run's bar
        from ._oracles import build_equilibria

        build_equilibria(oracle_games(plan.matchups), quiet=playing.quiet)
    playing.play(study, playing.exec_options(workers=workers or 0))


def _plan(
    config: Path | None,
    named: dict[str, str | None],
    formulation: str,
    games: int | None,
    seed: int | None,
    name: str | None,
) -> Plan:
    """The plan of a YAML file (`--config`) or of the flags (`named`: --game, --player, --opponent), never both."""
    from ..harness.plan import GAMES_PER_MATCHUP, load_plan, single_plan

    if config is not None:
        given = [flag for flag, v in named.items() if v is not None]
        if given or formulation != "standard":
            drop = ", ".join(given or ["--formulation"])
            raise UserError(f"--config sets the games and players; drop {drop} (or drop --config)")
        return load_plan(config, seed=seed, games=games, name=name)
    game, player, opponent = named.values()
    if game is None or player is None or opponent is None:
        missing = [flag for flag, v in named.items() if v is None]
        raise UserError(f"missing {', '.join(missing)} (or give --config plan.yaml)")
    return single_plan(
        game,
        formulation,
        player,
        opponent,
        GAMES_PER_MATCHUP if games is None else games,
        seed or 0,
        name,
    )


def register(app: typer.Typer) -> None:
    app.command("run")(run)
