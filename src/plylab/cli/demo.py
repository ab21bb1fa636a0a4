"""`plylab demo`: the embedded local model plays real games offline, then the table."""

from __future__ import annotations

import typer

from ..db import DEFAULT_STORE
from . import options as o

DEMO_MATCHUPS = [
    # output=enum: the base model's reply is constrained to the legal moves (the paper's free answer,
    # the default output=text, mostly fails with a 270M base model); the table shows the key.
    ("tic_tac_toe", "standard", "llm:model=local,output=enum", "optimal"),
    ("tic_tac_toe", "standard", "mcts:sims=1000", "optimal"),
    ("nim", "standard", "mcts:sims=1000", "optimal"),
]


def demo(
    games: int = typer.Option(4, "--games", min=1, help="games per matchup"),
    store: o.Store = DEFAULT_STORE,  # the store `plylab report` reads by default: the tour goes on from here
    seed: int = typer.Option(0, "--seed"),
) -> None:
    """Gemma 3 270M (in-process llama.cpp) vs the Optimal player on tic-tac-toe, plus MCTS references."""
    from ..analysis.metrics import matchup_results
    from ..analysis.tables import render
    from ..harness.driver import exec_options
    from ..harness.plan import Matchup, Plan
    from ..harness.runner import run_plan
    from ..harness.store import Store

    plan = Plan(f"demo.s{seed}.n{games}", seed, games, [Matchup(*m) for m in DEMO_MATCHUPS]).validate()
    print(
        "demo: Gemma 3 270M plays with output=enum (replies constrained to the legal moves), not the "
        "paper's free answer (output=text), which this small base model rarely gets right"
    )
    summary = run_plan(plan, store, options=exec_options(store, concurrency=4))
    print(summary.line())
    s = Store(store, create=False)
    try:
        print(render(matchup_results(s, plan.name), "table"))
    finally:
        s.close()


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
