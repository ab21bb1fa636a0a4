"""`plylab run`: play a matchup or a grid plan into the store; resumable."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import typer

from ..db import DEFAULT_STORE
from ..errors import UserError
from . import options as o
from ._study import naming_only, play


def run(
    game: str | None = typer.Option(None, "--game", help="game name (see `plylab games`)"),
    formulation: str = typer.Option("standard", "--formulation", help="rule formulation of the game"),
    player: str | None = typer.Option(None, "--player", help="player spec, e.g. mcts:sims=1000"),
    opponent: str | None = typer.Option(None, "--opponent", help="opponent spec, e.g. optimal"),
    games: int | None = typer.Option(
        None, "--games", help="games per matchup (default 100, the paper's; sides switch after half)"
    ),
    seed: int | None = typer.Option(None, "--seed", help="run seed (default 0)"),
    store: o.Store = DEFAULT_STORE,
    run_name: str | None = typer.Option(None, "--run", help="run name (default: derived from the plan)"),
    old_name: o.OldName = None,
    concurrency: o.Concurrency = 1,
    parallel: o.Parallel = None,
    workers: int | None = typer.Option(
        None,
        "--workers",
        min=1,
        help="worker processes for CPU-bound games (local; default 1), or CPU slots (ray; default all)",
    ),
    backend: o.Backend = "local",
    address: o.Address = None,
    max_calls: o.MaxCalls = None,
    max_tokens: o.MaxTokens = None,
    max_cost: o.MaxCost = None,
    config: Path | None = typer.Option(
        None, "--config", help="YAML grid plan (games x formulations x players x opponents)"
    ),
    quiet: o.Quiet = False,
    dry_run: o.DryRun = False,
    score: str = typer.Option(
        "on",
        "--score",
        help="on: score moves against the game's oracle (exact, or an engine for chess); off: never; "
        "nodes=N / depth=D: the engine's search limit per position (default nodes=20000); backgammon: "
        "plies=0|1|2, gnubg's level (default 2, its analysis level)",
    ),
) -> None:
    """Play games and store every move; re-running the same command resumes where it stopped.

    With a budget (--max-calls/--max-tokens/--max-cost; cached replies are free), no new game starts
    once the next one would exceed it, games in flight finish, and the run is marked stopped; the
    same command with a larger budget resumes it. Ctrl-C or SIGTERM stops at once, keeping every saved game.
    """
    from ..harness.budget import Budget  # here, not above: `plylab --help` stays fast
    from ..harness.driver import exec_options
    from ..harness.plan import GAMES_PER_MATCHUP, load_plan, single_plan
    from ..harness.runner import PlanStudy

    run_name, concurrency = run_name or old_name, parallel or concurrency
    budget = Budget(max_calls=max_calls, max_tokens=max_tokens, max_cost=max_cost)
    named = {"--game": game, "--player": player, "--opponent": opponent}
    with naming_only(dry_run):  # a dry run names its models: no API key read, no server asked
        if config is not None:
            given = [flag for flag, v in named.items() if v is not None]
            if given or formulation != "standard":
                drop = ", ".join(given or ["--formulation"])
                raise UserError(f"--config sets the games and players; drop {drop} (or drop --config)")
            plan = load_plan(config, seed=seed, games=games, name=run_name)
        elif game is None or player is None or opponent is None:
            missing = [flag for flag, v in named.items() if v is None]
            raise UserError(f"missing {', '.join(missing)} (or give --config plan.yaml)")
        else:
            plan = single_plan(
                game,
                formulation,
                player,
                opponent,
                GAMES_PER_MATCHUP if games is None else games,
                seed or 0,
                run_name,
            )
    if score == "off":  # carried by each matchup, so it is stored with the run's plan
        plan.matchups = [dataclasses.replace(m, score=False) for m in plan.matchups]
    elif score != "on":  # an engine limit: checked here, stored with the plan (a different limit, a new run)
        from ..games import get_game
        from ..oracles.engine import Limit, parse_limit
        from ..oracles.gnubg import level_key, parse_level
        from ..oracles.uci import FAMILY, maps

        games_of = sorted({get_game(m.game).name for m in plan.matchups})
        chess, gnubg = any(maps(g) for g in games_of), "backgammon" in games_of
        if chess and gnubg:  # one limit, two engines that read different ones
            raise UserError(
                f"--score {score} is one engine's limit; run chess-family games and backgammon separately"
            )
        if gnubg:  # gnubg's level: plies=0|1|2
            limit = level_key(parse_level(score))
        elif not chess:  # a limit no engine would read: refused, not ignored
            parse_limit(score)
            raise UserError(
                f"--score {score} sets an engine's search limit, and {', '.join(games_of)} is not scored "
                f"by an engine (those are: {', '.join(FAMILY)}, backgammon); use --score on or off"
            )
        else:
            parsed = parse_limit(score)
            limit = "" if parsed == Limit() else parsed.text()
        plan.matchups = [dataclasses.replace(m, score_limit=limit) for m in plan.matchups]
    if plan.interactive:  # a person types the moves: no bar drawn over the prompt, one board at a time
        quiet, concurrency = True, 1
    options = exec_options(store, concurrency=concurrency, workers=workers or 0, address=address)
    study = PlanStudy(plan, budget if budget.limited else None)
    if not dry_run:  # an equilibrium solved now is said and shown, not hidden behind the run's bar
        from ._oracles import build_equilibria, oracle_games

        build_equilibria(oracle_games(plan.matchups), quiet=quiet)
    play(study, store, options=options, backend=backend, quiet=quiet, dry_run=dry_run)


def register(app: typer.Typer) -> None:
    app.command("run")(run)
