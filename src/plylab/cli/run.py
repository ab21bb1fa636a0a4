"""`plylab run`: play a matchup or a grid plan into the store; resumable."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..errors import UserError
from ..harness.executor import EXECUTORS, ExecOptions
from ..harness.plan import load_plan, single_plan
from ..harness.runner import run_plan
from ..harness.store import DEFAULT_STORE


def run(
    game: Optional[str] = typer.Option(None, "--game", help="game name (see `plylab games`)"),
    formulation: str = typer.Option("standard", "--formulation", help="rule formulation of the game"),
    player: Optional[str] = typer.Option(None, "--player", help="player spec, e.g. mcts:sims=1000"),
    opponent: Optional[str] = typer.Option(None, "--opponent", help="opponent spec, e.g. optimal"),
    games: Optional[int] = typer.Option(None, "--games", help="games per matchup (sides switch after half)"),
    seed: Optional[int] = typer.Option(None, "--seed", help="run seed (default 0)"),
    store: Path = typer.Option(DEFAULT_STORE, "--store", help="SQLite results store"),
    run_name: Optional[str] = typer.Option(None, "--run", help="run name (default: derived from the plan)"),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="games in flight at once"),
    workers: int = typer.Option(1, "--workers", min=1, help="worker processes for CPU-bound games"),
    backend: str = typer.Option("local", "--backend", help="executor backend: local or ray"),
    address: Optional[str] = typer.Option(None, "--address", help="Ray cluster address (ray backend)"),
    config: Optional[Path] = typer.Option(None, "--config", help="YAML grid plan (games x formulations x players x opponents)"),
    quiet: bool = typer.Option(False, "--quiet", help="no progress bar"),
) -> None:
    """Play games and store every move; re-running the same command resumes where it stopped."""
    if backend not in EXECUTORS:
        # Backends register on import; Ray's module is optional.
        try:
            import importlib

            importlib.import_module(f"plylab.harness.backends.{backend}")
        except ModuleNotFoundError:
            pass
        EXECUTORS.get(backend)
    if config is not None:
        plan = load_plan(config, seed=seed, games=games, name=run_name)
    else:
        missing = [flag for flag, v in (("--game", game), ("--player", player), ("--opponent", opponent)) if v is None]
        if missing:
            raise UserError(f"missing {', '.join(missing)} (or give --config plan.yaml)")
        plan = single_plan(game, formulation, player, opponent, 10 if games is None else games,
                           0 if seed is None else seed, run_name)
    summary = run_plan(
        plan, store, backend=backend,
        options=ExecOptions(concurrency=concurrency, workers=workers, address=address, run_dir=str(store.parent)),
        progress=not quiet,
    )
    print(summary.line())
    if summary.status == "interrupted":
        raise typer.Exit(130)


def register(app: typer.Typer) -> None:
    app.command("run")(run)
