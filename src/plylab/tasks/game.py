"""`inspect eval plylab/game`: games against a plylab opponent, the model under evaluation as the player.

    inspect eval plylab/game -T game=tic_tac_toe -T opponent=optimal -T games=4 --model plylab/local

A sample per game, sides switched as `plylab run` switches them (the player first in the first half,
003 l.60); the game is plylab's own session (`harness.session.play_game`) with the player `llm` whose
model is inspect's model under evaluation (`models.Model.under_evaluation`, bound for the solver),
so each model call is one ModelEvent in the sample's transcript and nothing of the game loop is
written twice. The opponent is any plylab player spec (`optimal`, `mcts:sims=200`, `random`,
`llm:model=openai/gpt-5-mini`, ...). An `llm` opponent's model is inspect's model role `opponent`:
the spec's `model=` (plylab's default `local`, i.e. `plylab/local`) is the role's default, which
`--model-role opponent=<model>` replaces (inspect's rule: the eval's roles win over a task's), so its
calls are ModelEvents of the sample's transcript too, each with the role `opponent`.
The scorer is the game's ground truth (`analysis.inspect_scores`).
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import replace
from typing import TYPE_CHECKING

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..analysis.inspect_scores import METRICS, game_score, graded, inspect_score
from ..errors import UserError
from ..games import GameDef, get_game
from ..harness.plan import GAMES_PER_MATCHUP, INT64, GameJob, Matchup, single_plan
from ..players.base import player_class
from ..players.llm import LLMOptions
from ..specs import parse_spec
from .arguments import integer, refused_in_one_line, text
from .state import GamePlayed
from .stream import Numbered

if TYPE_CHECKING:
    from inspect_ai.model import Model as InspectModel

__all__ = ["OPPONENT_ROLE", "game", "ground_truth", "llm_spec", "opponent_role", "play", "truth_target"]

OUTPUTS = ("text", "json", "enum")
OPPONENT_ROLE = "opponent"  # the inspect model role of an `llm` opponent (`--model-role opponent=...`)
# An llm opponent's keys that name its model and server: inspect's role model takes them over
_MODEL_KEYS = ("model", "base_url", "max_connections")


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
        opponent: any plylab player spec (`plylab players` lists them). An `llm` opponent plays with
            inspect's model role `opponent`: `--model-role opponent=<model>`, else the spec's
            `model=` (default `local`, the embedded model).
        games: games (samples); the player moves first in the first half (003 l.60).
        formulation: how the game is shown to the model (`plylab games` lists each game's).
        seed: the run seed every game's seed derives from (as `plylab run --seed`).
        output: the player's answer: `text` (the paper's free answer), `json`, or `enum` (constrained
            to the legal moves: constrained decoding on `plylab/local`).
        player: further `llm` keys, comma-separated (`prompt=reason,on_failure=retry:2`).
        score: grade the moves against the game's ground truth.
    """
    with refused_in_one_line("plylab/game"):
        game, opponent, formulation = (
            text("game", game),
            text("opponent", opponent),
            text("formulation", formulation),
        )
        games, seed = integer("games", games, 1), integer("seed", seed, -INT64)
        output, player = text("output", output), text("player", player)
        role = opponent_role(opponent)  # before the plan: its check of `role=` is the task's to say
        # Validated as `plylab run` validates it, the local model standing in for inspect's (not known yet)
        plan = single_plan(game, formulation, llm_spec("local", output, player), opponent, games, seed, None)
    template = plan.matchups[0]
    if not score:
        template = replace(template, score=False)
    defined = get_game(game)
    truth = defined.ground_truth if score else None
    target = truth_target(defined) if score else ""

    def sample(idx: int) -> Sample:
        return Sample(
            id=idx + 1,
            input=f"{game} ({formulation}) game {idx + 1} of {games} against {opponent}",
            target=target,
            metadata={"idx": idx, "player_seat": GameJob(template, idx, games, seed).player_seat},
        )

    return Task(
        dataset=Numbered(games, sample),
        solver=play(template, games, seed, output, player),
        scorer=None if truth is None else ground_truth(truth.chess),
        metadata={"game": game, "formulation": formulation, "opponent": opponent, "seed": seed},
        model_roles=None if role is None else {OPPONENT_ROLE: role},
    )


def truth_target(game: GameDef) -> str:
    """What a sample of `game` is scored against: its ground truth, by kind and by name (a best move
    at every decision the truth grades); '' where the game has none."""
    truth = game.ground_truth
    if truth is None:
        return ""
    return f"a best move at every graded decision, by the {truth.kind} ground truth ({truth.name})"


def opponent_role(opponent: str) -> str | InspectModel | None:
    """The default of inspect's `opponent` model role for an `llm` opponent: the model its spec names
    (`local`: the embedded model, `plylab/local`), with its server where it names one; None for any
    other opponent, which calls no model or its own."""
    spec, _, options = player_class(opponent)
    if not isinstance(options, LLMOptions):
        return None
    if "role" in spec.options:
        raise UserError(
            f"-T opponent= takes no role: an llm opponent's model is inspect's model role "
            f"'{OPPONENT_ROLE}' (--model-role {OPPONENT_ROLE}=<model>)"
        )
    name = "plylab/local" if options.model == "local" else options.model
    if options.base_url is None and options.max_connections is None:
        return name
    from inspect_ai.model import GenerateConfig as InspectConfig
    from inspect_ai.model import get_model

    try:
        return get_model(
            name,
            base_url=options.base_url,
            config=InspectConfig(max_connections=options.max_connections),
            memoize=False,
        )
    except Exception as exc:  # noqa: BLE001 - unknown provider, missing key: one line
        from ..models.model import _construction_error

        raise UserError(f"cannot use the opponent's model '{name}': {_construction_error(exc)}") from None


def llm_opponent(opponent: str) -> bool:
    """Is `opponent` an `llm` spec (whose model is inspect's `opponent` role in the task)?"""
    return isinstance(player_class(opponent)[2], LLMOptions)


def role_spec(opponent: str, model: str) -> str:
    """The `llm` opponent's spec as its seat plays it in the solver: the model that inspect's
    `opponent` role resolved to (`model`, its name), bound under the role, and the spec's other keys."""
    spec = parse_spec(opponent)
    keys = [f"{k}={v}" for k, v in spec.options.items() if k not in _MODEL_KEYS]
    return ",".join([f"{spec.name}:model={model}", f"role={OPPONENT_ROLE}", *keys])


@solver(name="play")
def play(template: Matchup, games: int, seed: int, output: str = "text", player: str = "") -> Solver:
    """Play the sample's game with plylab's session, the `llm` player calling the model under
    evaluation; the game's record (every move, its grade) goes to the sample's store (`GamePlayed`)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        from inspect_ai.model import get_model, model_roles

        from ..harness.session import play_game
        from ..models.model import Model, bound_model

        model = Model.under_evaluation(get_model())
        matchup = replace(template, player=llm_spec(model.name, output, player))
        roles = model_roles()
        opponent: Model | None = None
        if llm_opponent(template.opponent):  # its model is inspect's `opponent` model role
            opponent = Model.under_evaluation(get_model(role=OPPONENT_ROLE, required=True))
            matchup = replace(matchup, opponent=role_spec(template.opponent, opponent.name))
        elif OPPONENT_ROLE in roles:
            raise UserError(
                f"--model-role {OPPONENT_ROLE}= gives a model to an llm opponent, and the opponent is "
                f"'{template.opponent}'; use -T opponent=llm (with its keys) or leave the role out"
            )
        job = GameJob(matchup, int(state.metadata["idx"]), games, seed)
        with bound_model(model), bound_model(opponent, OPPONENT_ROLE) if opponent else nullcontext():
            record = await play_game(job)
        state.store_as(GamePlayed).record = record
        state.output = ModelOutput.from_content(model.name, f"{record.outcome} as seat {record.player_seat}")
        state.completed = True
        return state

    return solve


@scorer(metrics=METRICS, name="ground_truth")
def ground_truth(chess: bool = False) -> Scorer:
    """The scorer of a sample whose solver played a plylab game (its record in the sample's store,
    `GamePlayed`): the game's figures (`analysis.inspect_scores`), lichess's `acpl` and `accuracy`
    too where `chess`. Registered when `plylab.tasks` is imported (`plylab/ground_truth`), so
    `inspect score --scorer plylab/ground_truth LOG` re-scores a log."""

    async def score(state: TaskState, target: Target) -> Score:
        played = state.store_as(GamePlayed).record
        if played is None:
            raise ValueError("the sample holds no plylab game record (a sample of plylab/game holds one)")
        moves = [graded(m.ply, m.seat, m.action, m.grade, m.failure_kind) for m in played.moves]
        return inspect_score(game_score(moves, played.player_seat, played.outcome, played.forfeit_by, chess))

    return score
