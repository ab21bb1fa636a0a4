"""`plylab demo`: the embedded local model plays real games offline, then the table."""

from __future__ import annotations

from pathlib import Path

import typer

from ..analysis.tables import render
from ..harness.backends import ExecOptions
from ..harness.plan import Matchup, Plan
from ..harness.runner import run_plan
from ..harness.store import Store

DEMO_MATCHUPS = [
    Matchup("tic_tac_toe", "standard", "llm:model=local,output=json", "optimal"),
    Matchup("tic_tac_toe", "standard", "mcts:sims=1000", "optimal"),
    Matchup("nim", "standard", "mcts:sims=1000", "optimal"),
]


def demo(
    games: int = typer.Option(4, "--games", min=1, help="games per matchup"),
    store: Path = typer.Option(Path("results/demo.sqlite"), "--store", help="SQLite results store"),
    seed: int = typer.Option(0, "--seed"),
) -> None:
    """Gemma 3 270M (in-process llama.cpp) vs the Optimal player on tic-tac-toe, plus MCTS references."""
    plan = Plan(f"demo.s{seed}.n{games}", seed, games, DEMO_MATCHUPS).validate()
    summary = run_plan(plan, store, options=ExecOptions(concurrency=4))
    print(summary.line())
    from ..analysis.metrics import matchup_rows

    s = Store(store, create=False)
    try:
        print(render(matchup_rows(s, plan.name), "table"))
    finally:
        s.close()


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
