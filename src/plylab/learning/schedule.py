"""What a learning experiment plays: runs of phases, each phase a list of deterministic game jobs.

A run is: evaluation on empty memory (checkpoint 0), then for each epoch e a learning phase
(`learn_games` games that update memory) and an evaluation at checkpoint e (`eval_games` games
on the frozen memory). A phase's seed derives from (experiment seed, run, phase), never from the
experiment's name, so an identical experiment under another name replays the same games (and
finds their model replies in the response cache).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Container, Iterator
from dataclasses import dataclass
from typing import Literal

from ..errors import UserError
from ..harness.plan import GameJob, Matchup, Plan, check_int, single_plan
from ..jsontypes import JSONObject
from ..players import player_class
from ..players.reaper import ReaperPlayer
from ..seeds import derive_seed

PhaseKind = Literal["eval", "learn", "reference"]


@dataclass(frozen=True)
class Experiment:
    """The command line of `plylab learn`, validated."""

    game: str
    formulation: str
    agent: str
    opponent: str
    runs: int = 10
    epochs: int = 5
    learn_games: int = 20
    eval_games: int = 50
    seed: int = 0
    name: str | None = None
    reference: str | None = None  # a memory-free player evaluated alongside (e.g. llm:model=local)

    @property
    def label(self) -> str:
        return (
            self.name or f"learn.{self.game}.{self.formulation}.{self.agent}-vs-{self.opponent}.s{self.seed}"
        )

    @property
    def slug(self) -> str:
        """The label as a folder name (memories live under it); the hash keeps long labels apart."""
        digest = hashlib.sha256(self.label.encode()).hexdigest()[:8]
        return f"{re.sub(r'[^A-Za-z0-9._-]+', '_', self.label)[:100]}-{digest}"

    def identity(self) -> JSONObject:
        """What every phase of this experiment shares (a resumed phase must match it)."""
        return {
            "name": self.label,
            "game": self.game,
            "formulation": self.formulation,
            "agent": self.agent,
            "opponent": self.opponent,
            "seed": self.seed,
            "learn_games": self.learn_games,
            "eval_games": self.eval_games,
        }

    def validate(self) -> Experiment:
        for flag, value, least in (
            ("--runs", self.runs, 1),
            ("--epochs", self.epochs, 0),
            ("--learn-games", self.learn_games, 1),
            ("--eval-games", self.eval_games, 1),
        ):
            check_int(flag, value, least)
        for player in filter(None, (self.agent, self.reference)):  # game, formulation and specs
            single_plan(self.game, self.formulation, player, self.opponent, 1, self.seed, None)
        spec, cls, options = player_class(self.agent)
        if not issubclass(cls, ReaperPlayer):
            raise UserError(
                f"--player must be a learning agent (reaper:, cbr: or memento:), not '{spec.name}'"
            )
        if getattr(options, "memory", None) is not None:
            raise UserError(
                "--player must not set memory=: each run learns into its own memory under the store's folder"
            )
        return self


@dataclass(frozen=True)
class Phase:
    run: int
    kind: PhaseKind
    index: int  # checkpoint (eval), epoch (learn); 0 for the reference
    games: int

    def store_run(self, exp: Experiment) -> str:
        return f"{exp.label}/run{self.run}/{self.kind}{self.index if self.kind != 'reference' else ''}"

    def seed(self, exp: Experiment) -> int:
        return derive_seed(exp.seed, "learn", self.run, self.kind, self.index)

    def player(self, exp: Experiment) -> str:
        return exp.reference if self.kind == "reference" and exp.reference else exp.agent

    def job(self, exp: Experiment, i: int) -> GameJob:
        return GameJob(
            Matchup(exp.game, exp.formulation, self.player(exp), exp.opponent), i, self.games, self.seed(exp)
        )

    def jobs(self, exp: Experiment, skip: Container[str] = ()) -> Iterator[GameJob]:
        """The phase's jobs in order, made as drawn (a one-matchup plan); those in `skip` left out."""
        return Plan(self.store_run(exp), self.seed(exp), self.games, [self.job(exp, 0).matchup]).jobs(skip)


def run_phases(exp: Experiment, run: int) -> list[Phase]:
    """One run's phases, in the order they are played."""
    out = [Phase(run, "eval", 0, exp.eval_games)]
    if exp.reference:
        out.append(Phase(run, "reference", 0, exp.eval_games))
    for e in range(1, exp.epochs + 1):
        out += [Phase(run, "learn", e, exp.learn_games), Phase(run, "eval", e, exp.eval_games)]
    return out


def planned_games(exp: Experiment) -> tuple[int, int]:
    """(the agent's games, the reference's games) of the whole experiment, counted, not listed:
    `--runs 1000000 --epochs 1000000` answers at once."""
    agent = exp.runs * ((exp.epochs + 1) * exp.eval_games + exp.epochs * exp.learn_games)
    return agent, exp.runs * exp.eval_games if exp.reference else 0


_PHASE_RUN = re.compile(r"run(\d+)/(eval|learn|reference)(\d*)")


def phase_of(exp: Experiment, store_run: str) -> Phase | None:
    """The phase of this experiment stored under the run named `store_run`; None if none is."""
    prefix = f"{exp.label}/"
    m = _PHASE_RUN.fullmatch(store_run[len(prefix) :]) if store_run.startswith(prefix) else None
    if m is None:
        return None
    run, kind, index = int(m.group(1)), m.group(2), int(m.group(3) or 0)
    if run >= exp.runs:
        return None
    if kind == "reference":
        return Phase(run, "reference", 0, exp.eval_games) if exp.reference and not m.group(3) else None
    if kind == "eval" and index <= exp.epochs:
        return Phase(run, "eval", index, exp.eval_games)
    if kind == "learn" and 1 <= index <= exp.epochs:
        return Phase(run, "learn", index, exp.learn_games)
    return None
