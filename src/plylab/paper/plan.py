"""A protocol + a model -> exactly the paper's runs: harness plans, learning experiments or Clue study runs.

Store names are fixed by the protocol and the model (`paper/<table>/<model>`), so re-running the
same `plylab paper run` resumes it, and tables that read the same games (5, 8, 9, 12 read Table 4's;
11, 13 read Table 10's) share one run instead of playing it twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import UserError
from ..harness.plan import Matchup, Plan
from ..specs import parse_spec, shown
from .protocols import Protocol, opponent_spec

if TYPE_CHECKING:
    from ..clue.study import RunPlan
    from ..learning import Experiment

TRANSPORT = ("base_url", "timeout", "max_connections")  # where a model is reached, not how it plays
MODEL_PLAYERS = ("llm", "reaper", "cbr", "memento")


@dataclass(frozen=True)
class Options:
    """What the user changed from the protocol; every field but `model` is a deviation the report names."""

    model: str
    games: int | None = None  # games per matchup (paper: the protocol's)
    seed: int = 0
    player_options: str | None = None  # e.g. "output=enum": appended to every model player's spec
    runs: int | None = None
    epochs: int | None = None
    learn_games: int | None = None
    eval_games: int | None = None

    def deviations(self, p: Protocol) -> list[str]:
        out = []
        kept = [
            kv for kv in (self.player_options or "").split(",") if kv.split("=")[0].strip() not in TRANSPORT
        ]
        if any(kv.strip() for kv in kept):
            out.append(f"player options {','.join(kept)} (not the paper's)")
        for label, mine, paper in (
            ("games per matchup", self.games, p.games_per_matchup if p.kind != "learn" else None),
            ("runs", self.runs, p.runs),
            ("epochs", self.epochs, p.epochs),
            ("learning games", self.learn_games, p.learn_games),
            ("evaluation games", self.eval_games, p.eval_games),
        ):
            if mine is not None and paper is not None and mine != paper:
                out.append(f"{label} {mine} (paper: {paper})")
        return out


def slug(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model)


def run_name(p: Protocol, model: str) -> str:
    return f"paper/{p.source}/{slug(model)}"


def reference_run_name(p: Protocol) -> str:
    return f"paper/{p.source}/reference"


def _check_options(extra: str | None) -> str:
    if not extra:
        return ""
    parse_spec(f"x:{extra}", kind="--player-options")  # one-line error on a malformed list
    if re.search(r"(^|,)\s*(model|effort)\s*=", extra):
        raise UserError(
            "--player-options may not set model= or effort= (the protocol sets them; use --model)"
        )
    return "," + extra


def model_spec(
    model: str,
    effort: str | None,
    extra: str | None = None,
    template: str = "llm:model={model},effort={effort}",
) -> str:
    if "," in model:
        raise UserError(
            f"model name '{shown(model)}' may not contain ',' (give the model alone, options via "
            "--player-options)"
        )
    spec = template.format(model=model, effort=effort or "")
    if effort is None:
        spec = spec.replace(",effort=", "")
    return spec + _check_options(extra)


def play_plan(p: Protocol, o: Options) -> Plan:
    """The model's matchups of a table (its source table's), as one resumable harness plan."""
    src = p if p.plays is None else _source(p)
    matchups = [
        Matchup(game, form, model_spec(o.model, effort, o.player_options), opponent_spec(role, game))
        for game, form, role, effort in src.matchups()
    ]
    games = o.games if o.games is not None else src.games_per_matchup
    return Plan(run_name(src, o.model), o.seed, games, matchups).validate()


def reference_plan(p: Protocol, games: int | None, seed: int = 0) -> Plan:
    """Classic reference rows (no model): the paper's MCTS vs Random and vs Optimal, and Optimal vs
    the table's opponents, on each game of the table — how strong and how exploitable the MCTS is."""
    src = p if p.plays is None else _source(p)
    matchups: list[Matchup] = []
    for game in src.games:
        mcts = opponent_spec("mcts", game)
        pairs = [(mcts, "random"), (mcts, "optimal")] + [
            ("optimal", opponent_spec(r, game)) for r in src.opponents
        ]
        for player, opp in pairs:
            m = Matchup(game, "standard", player, opp)
            if m not in matchups:
                matchups.append(m)
    return Plan(reference_run_name(src), seed, games if games is not None else 100, matchups).validate()


def _source(p: Protocol) -> Protocol:
    return _source_of(p.source)


def _source_of(name: str) -> Protocol:
    from .protocols import get_protocol

    return get_protocol(name)


def learning_experiments(p: Protocol, o: Options) -> list[Experiment]:
    """One learning experiment per configuration of the figure (the first carries the reference)."""
    from ..learning import Experiment

    effort = p.efforts[0]
    out = []
    for i, agent in enumerate(p.agents):
        out.append(
            Experiment(
                game=p.games[0],
                formulation="standard",
                agent=model_spec(o.model, effort, o.player_options, agent.spec),
                opponent=p.opponents[0],
                runs=o.runs if o.runs is not None else p.runs or 10,
                epochs=o.epochs if o.epochs is not None else p.epochs or 5,
                learn_games=o.learn_games if o.learn_games is not None else p.learn_games or 20,
                eval_games=o.eval_games if o.eval_games is not None else p.eval_games or 50,
                seed=o.seed,
                # an agent that is another figure's (Fig. 6's state-mode ones are Fig. 4's) runs
                # under that figure's name: one experiment, its cached replies reused (issue 19)
                name=f"{run_name(_source_of(agent.same_as) if agent.same_as else p, o.model)}/{agent.label}",
                reference=model_spec(o.model, effort, _llm_options(o.player_options))
                if i == 0 and p.reference
                else None,
            )
        )
    return out


def _llm_options(extra: str | None) -> str | None:
    """The figure's player options as the single-call reference takes them (answer=legal -> output=enum)."""
    if not extra:
        return None
    parts = [s for s in extra.split(",") if s.strip()]
    mapped = ["output=enum" if s.replace(" ", "") == "answer=legal" else s for s in parts]
    kept = [
        s
        for s in mapped
        if s.split("=")[0].strip() in ("output", "temperature", "max_tokens", "timeout", "on_failure")
    ]
    return ",".join(kept) or None


def clue_plans(
    p: Protocol, models: list[str], games: int | None, seed: int, concurrency: int
) -> list[RunPlan]:
    """The Clue study's three conditions (000 l.95): six seats, three per model family; one model
    given fills all six seats (three per copy), keeping the paper's six-player game (000 l.82)."""
    from ..clue.study import RunPlan, study_specs

    if not models:
        raise UserError("give --model (once per model family; the paper seats two, three seats each)")
    seats = models if len(models) > 1 else models * 2
    n = games if games is not None else p.games_per_matchup
    return [
        RunPlan(study_specs(c, seats), n, seed, condition=c, concurrency=concurrency) for c in p.conditions
    ]
