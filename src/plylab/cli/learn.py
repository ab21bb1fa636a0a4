"""`plylab learn`: the REAPER learning protocol — evaluate, learn, evaluate — resumable."""

from __future__ import annotations

import typer

from ..db import DEFAULT_STORE
from ..errors import UserError
from . import options as o
from ._study import naming_only, play


def learn(
    game: str = typer.Option(..., "--game", help="game name (see `plylab games`)"),
    player: str | None = typer.Option(
        None, "--player", help="learning agent: reaper:model=M, cbr:model=M or memento:model=M"
    ),
    agent: str | None = typer.Option(None, "--agent", hidden=True),  # old spelling of --player
    opponent: str = typer.Option(..., "--opponent", help="opponent spec, e.g. optimal"),
    runs: int = typer.Option(10, "--runs", help="independent runs (each from empty memory)"),
    epochs: int = typer.Option(
        5, "--epochs", help="learning phases per run (each followed by an evaluation)"
    ),
    learn_games: int = typer.Option(20, "--learn-games", help="games per learning phase"),
    eval_games: int = typer.Option(50, "--eval-games", help="games per evaluation (memory frozen)"),
    seed: o.Seed = 0,
    store: o.Store = DEFAULT_STORE,  # memories go beside it
    formulation: str = typer.Option("standard", "--formulation", help="rule formulation of the game"),
    run_name: str | None = typer.Option(
        None, "--run", help="experiment name (default: derived from the command)"
    ),
    name: o.OldName = None,
    reference: str | None = typer.Option(
        None, "--reference", help="memory-free reference player, e.g. llm:model=local"
    ),
    concurrency: o.Concurrency = 1,  # evaluation games; a learning phase plays in order
    parallel: o.Parallel = None,
    backend: o.Backend = "local",
    address: o.Address = None,
    quiet: o.Quiet = False,
    dry_run: o.DryRun = False,
) -> None:
    """Run the learning protocol; re-running the same command resumes to exactly the same memory.
    Ctrl-C or SIGTERM stops at once, keeping every saved game."""
    from ..learning import Experiment, Learner

    learner_spec = player or agent
    if learner_spec is None:
        raise UserError("missing --player (the learning agent, e.g. reaper:model=local)")
    with naming_only(dry_run):  # a dry run names its models: no API key read, no server asked
        exp = Experiment(
            game,
            formulation,
            learner_spec,
            opponent,
            runs,
            epochs,
            learn_games,
            eval_games,
            seed,
            run_name or name,
            reference,
        )
        learner = Learner(
            exp,
            store,
            concurrency=parallel or concurrency,
            progress=not quiet,
            backend=backend,
            address=address,
        )
    play(learner, store, options=learner.exec_options, backend=backend, quiet=quiet, dry_run=dry_run)


def register(app: typer.Typer) -> None:
    app.command("learn")(learn)
