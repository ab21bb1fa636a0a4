"""`plylab clue run` and `plylab clue study`: Clue games as a study of the one run driver.

A run is identified by (condition, seed, turn limit, specs): running the same command again
plays only the games not yet stored, and asking for more games extends the run. Game `i` has
seed derive_seed(seed, i), which seats the players (a shuffle) and deals, so which games were
played before never changes the others.

Each game is a `GameJob` of the game `clue` (`game.py`), played by the one session loop and
saved by the one store (`harness.store`) as a run of kind `clue`; nothing here plays or stores.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..errors import UserError
from ..harness.driver import RunSummary, exec_options, run_study
from ..harness.forecast import Forecast, model_of, read_store
from ..harness.plan import INT64, GameJob, Matchup, check_int
from ..harness.records import GameRecord
from ..harness.store import Store
from ..harness.study import Part, StudyContext
from ..models.call import SEEDING
from ..players.canonical import canonical_spec
from ..seeds import clue_seed_v1, derive_seed
from ..specs import parse_spec, shown
from .base import clue_player_class
from .engine import DEFAULT_TURN_LIMIT
from .game import game_name, seating
from .records import KIND

CONDITIONS = ("baseline", "matrix", "mixed")
MIN_PLAYERS, MAX_PLAYERS = 3, 6


def key_spelling(spec_text: str) -> str:
    """A spec as run keys spell it (options sorted, values as given). Frozen: every stored Clue run
    key was made from it, and a run resumes only under the same key. Names shown and stored are
    `players.canonical`'s."""
    spec = parse_spec(spec_text, kind="Clue player spec")
    if not spec.options:
        return spec.name
    return spec.name + ":" + ",".join(f"{k}={v}" for k, v in sorted(spec.options.items()))


def study_specs(
    condition: str, models: list[str], *, temperature: float | None = None, max_tokens: int | None = None
) -> list[str]:
    """Three seats per model: all baseline, all matrix, or (mixed) one matrix and two baseline."""
    if condition not in CONDITIONS:
        raise UserError(f"unknown condition '{condition}'; accepted: {', '.join(CONDITIONS)}")
    if not models:
        raise UserError("give at least one --model")
    if any(not m.strip() for m in models):
        raise UserError("--model is empty; give a model name, e.g. local or openai/gpt-5-nano")
    if not MIN_PLAYERS <= 3 * len(models) <= MAX_PLAYERS:
        raise UserError(
            f"a study seats three players per model, so it takes 1 or 2 models, not {len(models)}"
        )
    extra = (f",temperature={temperature}" if temperature is not None else "") + (
        f",max_tokens={max_tokens}" if max_tokens is not None else ""
    )
    flags = {"baseline": ["off"] * 3, "matrix": ["on"] * 3, "mixed": ["on", "off", "off"]}[condition]
    for model in models:
        if "," in model:
            raise UserError(f"model name '{shown(model)}' may not contain ','")
    return [f"clue-llm:model={m},matrix={flag}{extra}" for m in models for flag in flags]


@dataclass
class RunPlan:
    """What `plylab clue run`/`study` asks for: the seats, games, seed, turn limit and condition."""

    specs: list[str]
    games: int
    seed: int = 0
    turn_limit: int = DEFAULT_TURN_LIMIT
    condition: str = "custom"
    concurrency: int = 1

    def validate(self) -> list[str]:
        """Check everything before any game starts; returns the specs as run keys spell them."""
        if not MIN_PLAYERS <= len(self.specs) <= MAX_PLAYERS:
            raise UserError(
                f"Clue takes {MIN_PLAYERS} to {MAX_PLAYERS} players (one --player per seat), got {len(self.specs)}"
            )
        for flag, value, least in (
            ("--games", self.games, 1),
            ("--seed", self.seed, -INT64),
            ("--turn-limit", self.turn_limit, 1),
            ("--concurrency", self.concurrency, 1),
        ):
            check_int(flag, value, least)
        specs = []
        for text in self.specs:
            _, cls, options = clue_player_class(text)
            cls.prepare(options)
            specs.append(key_spelling(text))
        return specs

    def key(self, specs: list[str], *, legacy: bool = False, seeding: int = SEEDING) -> str:
        """The run's identity. Runs stored before seeds were shared (`legacy`) have no seed marker;
        runs stored before the per-call seed rule (`seeding` 1) have no rule marker."""
        parts: list[object] = [self.condition, self.seed, self.turn_limit, specs]
        parts += ([] if legacy else ["seeds=shared"]) + ([] if seeding == 1 else [f"seeding={seeding}"])
        body = json.dumps(parts)
        return f"{self.condition}/seed{self.seed}/{hashlib.sha256(body.encode()).hexdigest()[:12]}"


@dataclass(frozen=True)
class ClueJob(GameJob):
    """Game `idx` of a Clue run: its seats in the seeded order, its seed and its key as Clue has
    always made them (`<run key>/<idx>` keys the response cache), played by the one session."""

    seats: tuple[str, ...] = ()
    game_seed: int = 0
    run_key: str = ""
    uses_model: bool = False

    @property
    def player_seat(self) -> int:
        return self.seats.index(self.matchup.player)

    @cached_property
    def seed(self) -> int:
        return self.game_seed

    @cached_property
    def key(self) -> str:
        return f"{self.run_key}/{self.idx}"

    def seat_specs(self) -> tuple[str, ...]:
        return self.seats


@dataclass
class ClueStudy:
    """A Clue run (a plan's games) for the run driver; the wins of this session are its details."""

    plan: RunPlan
    kind: str = "clue run"
    wins: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.specs = self.plan.validate()
        self.key = self.name = self.plan.key(self.specs)
        self.legacy, self.seeding = False, SEEDING

    @property
    def lease(self) -> str:
        return f"clue:{self.key}"

    @property
    def planned(self) -> int:
        return self.plan.games

    def _keys(self) -> list[str]:
        p, s = self.plan, self.specs
        return [p.key(s), p.key(s, seeding=1), p.key(s, legacy=True, seeding=1)]

    def open_store(self, path: Path) -> Store:
        store = Store(path)
        # Runs stored before seeds were shared, or before the per-call seed rule, resume with the
        # seeds their games were played with (their replies are cached under them).
        stored = {r.name for r in store.runs() if r.kind == KIND} | store.old_clue_run_keys()
        self.legacy = self.plan.key(self.specs, legacy=True, seeding=1) in stored
        self.seeding = 1 if self.legacy or self.plan.key(self.specs, seeding=1) in stored else SEEDING
        self.key = self.name = self.plan.key(self.specs, legacy=self.legacy, seeding=self.seeding)
        return store

    def jobs(self, done: set[int]) -> Iterator[ClueJob]:
        """The run's games not in `done`, made as they are drawn."""
        plan, specs = self.plan, self.specs
        seed_of = clue_seed_v1 if self.legacy else derive_seed
        model = any(clue_player_class(s)[1].uses_model for s in specs)
        names = [canonical_spec(s) for s in specs]
        matchup = Matchup(
            game_name(len(specs), plan.turn_limit), "text", names[0], names[1], others=tuple(names[2:])
        )
        for i in range(plan.games):
            if i not in done:
                seed = seed_of(plan.seed, i)
                seats = tuple(seating(names, seed))
                yield ClueJob(matchup, i, plan.games, plan.seed, seats, seed, self.key, model)

    async def parts(
        self, store: Store, context: StudyContext
    ) -> AsyncGenerator[Part[ClueJob, GameRecord], None]:
        plan, key = self.plan, self.key
        spec = {"condition": plan.condition, "turn_limit": plan.turn_limit, "specs": self.specs}
        run_id = store.open_run(key, plan.seed, spec, kind=KIND)
        done = {g.idx for g in store.games([run_id])}
        model = any(clue_player_class(s)[1].uses_model for s in self.specs)
        context.label(f"clue {key}")

        def save(rec: GameRecord) -> bool:
            if not store.save_game(run_id, rec):
                return False
            extra = rec.extra or {}
            seats, winner = extra["seats"], extra.get("winner")  # the session names every seat's player
            if winner is not None:
                self.wins[seats[winner]] = self.wins.get(seats[winner], 0) + 1
            return True

        extra: dict[str, object] = {"seeding": self.seeding, "clue_cells": store.rules(run_id)["clue_cells"]}
        extra |= {"clue_seeds": "v1"} if self.legacy else {}
        yield Part(
            self.jobs(done),
            save,
            lambda status, why: store.finish_run(run_id, status, why),
            plan.games,
            already=sum(i < plan.games for i in done),
            model=model,
            extra=extra,
        )

    def forecast(self, store_path: Path) -> Forecast:
        """Games the store lacks; each model seat's calls bounded by its turns within the turn limit."""
        with read_store(store_path) as view:
            done: set[int] = set()
            for key in self._keys():
                done |= view.saved_indexes(key)
        saved = sum(i < self.plan.games for i in done)
        out = Forecast(self.kind, self.name, self.plan.games - saved, saved)
        for spec in self.specs:
            model = model_of(spec)
            if model is not None:
                load = out.load(model)
                load.mark = "≤"
                load.calls += out.games * math.ceil(self.plan.turn_limit / len(self.specs))
        return out

    def details(self) -> list[str]:
        wins = ", ".join(f"{spec} {n}" for spec, n in sorted(self.wins.items())) or "none"
        return [f"wins this session: {wins}"]


def run_plan(
    plan: RunPlan,
    store_path: str | Path,
    *,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
) -> RunSummary:
    """Play the plan's missing games on `backend` (`local`, or `ray` joining `address` or starting
    a local instance) and save each one as it ends."""
    study = ClueStudy(plan)
    options = exec_options(store_path, concurrency=plan.concurrency, address=address)
    return run_study(study, store_path, backend=backend, options=options, progress=progress, stderr=True)
