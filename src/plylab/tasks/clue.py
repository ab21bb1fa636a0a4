"""`inspect eval plylab/clue -T condition=matrix`: the Clue study's games, every seat the model under evaluation.

    inspect eval plylab/clue -T condition=matrix -T games=10 --model openai/gpt-5-nano

A sample per game of `plylab clue study`'s condition (000: three seats, all `baseline`, all
`matrix`, or `mixed`), seated and seeded as `plylab clue run` seats and seeds them
(`clue.study.ClueStudy`), played by plylab's one session with the seats' model bound to inspect's
model under evaluation: every seat's call is a ModelEvent of the sample. The score is the game's
end: `solved` (a seat's correct accusation), the turns it took, and the matrix seats' share of wins.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..clue.engine import DEFAULT_TURN_LIMIT
from ..clue.game import game_name
from ..clue.study import ClueStudy, RunPlan, study_specs
from ..games import get_game
from ..harness.plan import INT64
from .arguments import integer, refused_in_one_line, text
from .state import GamePlayed
from .stream import Numbered

__all__ = ["clue", "clue_end"]


def _plan(condition: str, model: str, games: int, seed: int, turn_limit: int) -> RunPlan:
    return RunPlan(study_specs(condition, [model]), games, seed, turn_limit, condition)


@task(name="clue")
def clue(
    condition: str = "matrix", games: int = 1, seed: int = 0, turn_limit: int = DEFAULT_TURN_LIMIT
) -> Task:
    """The Clue study's games, every seat the model under evaluation.

    Args:
        condition: `baseline` (every seat reads the history), `matrix` (every seat the possibility
            matrix, 000 l.138) or `mixed` (one matrix seat, two baseline).
        games: games (samples).
        seed: the run seed the deals and seatings derive from, as `plylab clue run --seed`.
        turn_limit: turns before a game ends unsolved, as `plylab clue run --turn-limit`.
    """
    with refused_in_one_line("plylab/clue"):
        condition = text("condition", condition)
        games, seed = integer("games", games, 1), integer("seed", seed, -INT64)
        turn_limit = integer("turn_limit", turn_limit, 1)
        plan = _plan(condition, "local", games, seed, turn_limit)
        plan.validate()
        get_game(game_name(len(plan.specs), turn_limit))  # a game too long to play is refused here

    def sample(idx: int) -> Sample:
        return Sample(
            id=idx + 1, input=f"Clue ({condition}) game {idx + 1} of {games}", metadata={"idx": idx}
        )

    return Task(
        dataset=Numbered(games, sample),
        solver=clue_play(condition, games, seed, turn_limit),
        scorer=clue_end(),
        metadata={"condition": condition, "seed": seed, "turn_limit": turn_limit},
    )


@solver(name="clue_play")
def clue_play(condition: str, games: int, seed: int, turn_limit: int) -> Solver:
    """Play the sample's Clue game with plylab's session; its record goes to the sample's store
    (`GamePlayed`)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        from inspect_ai.model import get_model

        from ..harness.session import play_game
        from ..models.model import Model, bound_model

        model = Model.under_evaluation(get_model())
        idx = int(state.metadata["idx"])
        with bound_model(model):
            study = ClueStudy(_plan(condition, model.name, games, seed, turn_limit))
            job = next(j for j in study.jobs(set()) if j.idx == idx)
            record = await play_game(job)
        state.store_as(GamePlayed).record = record
        extra = record.extra or {}
        state.output = ModelOutput.from_content(model.name, str(extra.get("end_reason", "")))
        state.completed = True
        return state

    return solve


@scorer(
    metrics={"solved": [mean(), stderr()], "turns": [mean(), stderr()], "matrix_win": [mean()]},
    name="clue_end",
)
def clue_end() -> Scorer:
    """The game's end: `solved` 1 where a seat accused correctly, `turns` taken, `matrix_win` 1 where
    the winner read the possibility matrix (NaN where no one won)."""

    async def score(state: TaskState, target: Target) -> Score:
        played = state.store_as(GamePlayed).record
        if played is None:
            raise ValueError("the sample holds no plylab game record (a sample of plylab/clue holds one)")
        extra = played.extra or {}
        winner = extra.get("winner")
        seats = extra.get("seats") or []
        matrix = float("nan") if winner is None else float("matrix=on" in str(seats[int(winner)]))
        return Score(
            value={
                "solved": float(winner is not None),
                "turns": float(extra.get("turns", 0)),
                "matrix_win": matrix,
            },
            answer=str(extra.get("end_reason")),
            metadata={"winner": winner, "seats": seats, "end_reason": extra.get("end_reason")},
        )

    return score
