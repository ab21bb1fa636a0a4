"""`inspect eval plylab/game`: games against a plylab opponent, the model under evaluation as the player.

    inspect eval plylab/game -T game=tic_tac_toe -T opponent=optimal -T games=4 --model plylab/local

A sample per game, sides switched as `plylab run` switches them (the player first in the first half,
003 l.60); the game is plylab's own session (`harness.session.play_game`) with the player `llm` whose
model is inspect's model under evaluation (`models.Model.under_evaluation`, bound for the solver),
so each model call is one ModelEvent in the sample's transcript and nothing of the game loop is
written twice. The opponent is any plylab player spec (`optimal`, `mcts:sims=200`, `random`,
`llm:model=openai/gpt-5-mini`, ...). The scorer is the game's ground truth (`analysis.inspect_scores`).
"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..analysis.inspect_scores import ground_truth
from ..errors import UserError
from ..games import get_game
from ..harness.plan import GAMES_PER_MATCHUP, GameJob, Matchup, single_plan

__all__ = ["game", "llm_spec", "play"]

OUTPUTS = ("text", "json", "enum")


def llm_spec(model: str, output: str, keys: str) -> str:
    """The `llm` player's spec for `model`: `output` and the further `llm` keys (`keys`, e.g.
    `prompt=reason,on_failure=retry:2`); `model=` belongs to inspect's `--model`."""
    if output not in OUTPUTS:
        raise UserError(f"unknown output '{output}'; accepted: {', '.join(OUTPUTS)}")
    extra = [k.strip() for k in keys.split(",") if k.strip()]
    if any(k.split("=", 1)[0].strip() == "model" for k in extra):
        raise UserError("-T player= takes the llm keys besides model; the model is inspect's --model")
    return ",".join([f"llm:model={model}", f"output={output}", *extra])


@task(name="game")
def game(
    game: str = "tic_tac_toe",
    opponent: str = "random",
    games: int = GAMES_PER_MATCHUP,
    formulation: str = "standard",
    seed: int = 0,
    output: str = "text",
    player: str = "",
    score: bool = True,
) -> Task:
    """plylab games, the model under evaluation as the player.

    Args:
        game: a plylab game name, with parameters (`tic_tac_toe`, `kuhn_poker`, `mnk:m=4,n=4,k=3`).
        opponent: any plylab player spec (`plylab players` lists them).
        games: games (samples); the player moves first in the first half (003 l.60).
        formulation: how the game is shown to the model (`plylab games` lists each game's).
        seed: the run seed every game's seed derives from (as `plylab run --seed`).
        output: the player's answer: `text` (the paper's free answer), `json`, or `enum` (constrained
            to the legal moves: constrained decoding on `plylab/local`).
        player: further `llm` keys, comma-separated (`prompt=reason,on_failure=retry:2`).
        score: grade the moves against the game's ground truth.
    """
    # Validated as `plylab run` validates it, the local model standing in for inspect's (not known yet)
    plan = single_plan(game, formulation, llm_spec("local", output, player), opponent, games, seed, None)
    template = plan.matchups[0]
    if not score:
        template = replace(template, score=False)
    truth = get_game(game).ground_truth
    chess = truth is not None and truth.chess
    samples = [
        Sample(
            id=idx + 1,
            input=f"{game} ({formulation}) game {idx + 1} of {games} against {opponent}",
            metadata={"idx": idx, "player_seat": GameJob(template, idx, games, seed).player_seat},
        )
        for idx in range(games)
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"{game}-vs-{opponent}"),
        solver=play(template, games, seed, output, player),
        scorer=ground_truth(chess) if score and truth is not None else None,
        metadata={"game": game, "formulation": formulation, "opponent": opponent, "seed": seed},
    )


@solver(name="play")
def play(template: Matchup, games: int, seed: int, output: str = "text", player: str = "") -> Solver:
    """Play the sample's game with plylab's session, the `llm` player calling the model under
    evaluation; the game's record (every move, its grade) goes to `state.metadata["plylab"]`."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        from inspect_ai.model import get_model

        from ..harness.session import play_game
        from ..models.model import Model, bound_model

        model = Model.under_evaluation(get_model())
        matchup = replace(template, player=llm_spec(model.name, output, player))
        job = GameJob(matchup, int(state.metadata["idx"]), games, seed)
        with bound_model(model):
            record = await play_game(job)
        state.metadata["plylab"] = _plain(asdict(record))
        state.output = ModelOutput.from_content(model.name, f"{record.outcome} as seat {record.player_seat}")
        state.completed = True
        return state

    return solve


def _plain(value: Any) -> Any:
    """A record as JSON holds it (dict keys as strings)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
