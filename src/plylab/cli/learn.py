"""`plylab learn`: the REAPER learning protocol — evaluate, learn, evaluate — resumable."""

from __future__ import annotations

import dataclasses

import typer

from ..errors import UserError
from . import options as o
from ._study import naming_only


@o.grouped
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
    formulation: str = typer.Option("standard", "--formulation", help="rule formulation of the game"),
    run_name: str | None = typer.Option(
        None, "--run", help="experiment name (default: derived from the command)"
    ),
    name: o.OldName = None,
    reference: str | None = typer.Option(
        None, "--reference", help="memory-free reference player, e.g. llm:model=local"
    ),
    parallel: o.Parallel = None,
    *,
    playing: o.Playing,  # memories go beside the store; --concurrency: evaluation games (a learning phase plays in order)
) -> None:
    """Run the learning protocol; re-running the same command resumes to exactly the same memory.
    Ctrl-C or SIGTERM stops at once, keeping every saved game."""
    from ..learning import Experiment

    learner_spec = player or agent
    if learner_spec is None:
        raise UserError("missing --player (the learning agent, e.g. reaper:model=local)")
    if parallel is not None:
        playing = dataclasses.replace(playing, concurrency=parallel)
    with naming_only(playing.dry_run):  # a dry run names its models: no API key read, no server asked
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
        learner = playing.learner(exp)
    playing.play(learner, learner.exec_options)


def register(app: typer.Typer) -> None:
    app.command("learn")(learn)
