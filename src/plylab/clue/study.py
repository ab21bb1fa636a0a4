"""Plans and runs Clue games into the store: `plylab clue run` and `plylab clue study`.

A run is identified by (condition, seed, turn limit, specs): running the same command again
plays only the games not yet stored, and asking for more games extends the run. Game `i` has
seed derive_seed(seed, i), so which games were played before never changes the others.

Each game is a `ClueJob` for the harness run driver (`local` executor by default, or `ray`), so
Clue games run wherever tic-tac-toe games do; results come back here, to the one store writer.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import sqlite3
from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UserError
from ..harness.driver import RunSummary, exec_options, run_study
from ..harness.forecast import Forecast, model_of, read_store
from ..harness.plan import INT64, check_int
from ..harness.seeds import clue_seed_v1, derive_seed
from ..harness.study import Part, StudyContext
from ..models.call import SEEDING
from ..players import RunContext
from ..specs import parse_spec
from .base import clue_player_class
from .engine import DEFAULT_TURN_LIMIT
from .session import GameLog, play_game
from .store import ClueStore

CONDITIONS = ("baseline", "matrix", "mixed")
MIN_PLAYERS, MAX_PLAYERS = 3, 6


def canonical(spec_text: str) -> str:
    """One spelling per spec (options sorted), so reports group equal players together."""
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
            raise UserError(f"model name '{model}' may not contain ','")
    return [f"clue-llm:model={m},matrix={flag}{extra}" for m in models for flag in flags]


@dataclass
class RunPlan:
    specs: list[str]
    games: int
    seed: int = 0
    turn_limit: int = DEFAULT_TURN_LIMIT
    condition: str = "custom"
    concurrency: int = 1

    def validate(self) -> list[str]:
        """Check everything before any game starts; returns the canonical specs."""
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
            specs.append(canonical(text))
        return specs

    def key(self, specs: list[str], *, legacy: bool = False, seeding: int = SEEDING) -> str:
        """The run's identity. Runs stored before seeds were shared (`legacy`) have no seed marker;
        runs stored before the per-call seed rule (`seeding` 1) have no rule marker."""
        parts: list[object] = [self.condition, self.seed, self.turn_limit, specs]
        parts += ([] if legacy else ["seeds=shared"]) + ([] if seeding == 1 else [f"seeding={seeding}"])
        body = json.dumps(parts)
        return f"{self.condition}/seed{self.seed}/{hashlib.sha256(body.encode()).hexdigest()[:12]}"


@dataclass(frozen=True)
class ClueResult:
    """One finished game, as it comes back from an executor."""

    index: int
    log: GameLog


@dataclass(frozen=True)
class ClueJob:
    """Game `index` of a run, as an executor job (picklable: plain values only)."""

    key: str  # "<run key>/<index>": the game's response-cache key prefix
    index: int
    specs: tuple[str, ...]
    seed: int
    turn_limit: int
    uses_model: bool
    legacy_seeds: bool = False  # a run stored before seeds were shared: its seats keep the old seeds
    seeding: int = SEEDING  # the run's per-call seed rule (1: a run stored before it)

    async def play(self, context: RunContext) -> ClueResult:
        game_context = RunContext(store_path=context.store_path, cache=context.cache, job_key=self.key)
        game_context.extra["seeding"] = self.seeding
        seat_seed = clue_seed_v1 if self.legacy_seeds else derive_seed
        log = await play_game(
            list(self.specs), self.seed, turn_limit=self.turn_limit, context=game_context, seat_seed=seat_seed
        )
        return ClueResult(self.index, log)


@dataclass
class ClueStudy:
    """A Clue run (a plan's games) for the run driver; the wins of this session are its details."""

    plan: RunPlan
    kind: str = "clue run"
    wins: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.specs = self.plan.validate()
        self.key = self.name = self.plan.key(self.specs)

    @property
    def lease(self) -> str:
        return f"clue:{self.key}"

    @property
    def planned(self) -> int:
        return self.plan.games

    def open_store(self, path: Path) -> ClueStore:
        store = ClueStore(path)

        # Runs stored before seeds were shared, or before the per-call seed rule, resume with the
        # seeds their games were played with (their replies are cached under them).
        def stored(key: str) -> bool:
            return store.conn.execute("SELECT 1 FROM clue_runs WHERE key=?", (key,)).fetchone() is not None

        self.legacy = stored(self.plan.key(self.specs, legacy=True, seeding=1))
        self.seeding = 1 if self.legacy or stored(self.plan.key(self.specs, seeding=1)) else SEEDING
        self.key = self.name = self.plan.key(self.specs, legacy=self.legacy, seeding=self.seeding)
        return store

    async def parts(
        self, store: ClueStore, context: StudyContext
    ) -> AsyncGenerator[Part[ClueJob, ClueResult], None]:
        plan, specs, key, legacy, seeding = self.plan, self.specs, self.key, self.legacy, self.seeding
        seed_of = clue_seed_v1 if legacy else derive_seed
        run_id = store.open_run(key, plan.condition, plan.seed, plan.turn_limit, specs)
        done = store.finished(run_id)
        model = any(clue_player_class(s)[1].uses_model for s in specs)
        context.label(f"clue {key}")

        def jobs() -> Iterator[ClueJob]:
            for i in range(plan.games):
                if i not in done:
                    seed = seed_of(plan.seed, i)
                    yield ClueJob(
                        f"{key}/{i}", i, tuple(specs), seed, plan.turn_limit, model, legacy, seeding
                    )

        def save(result: ClueResult) -> bool:
            log = result.log
            if not store.save_game(run_id, result.index, log):
                return False
            if log.winner is not None:
                winner = log.seats[log.winner]
                self.wins[winner] = self.wins.get(winner, 0) + 1
            return True

        yield Part(
            jobs(),
            save,
            lambda status, why: store.finish_run(run_id, status, why),
            plan.games,
            already=sum(i < plan.games for i in done),
            model=model,
        )

    def forecast(self, store_path: Path) -> Forecast:
        """Games the store lacks; each model seat's calls bounded by its turns within the turn limit."""
        conn = read_store(store_path)
        saved = 0
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                keys = (
                    self.plan.key(self.specs),
                    self.plan.key(self.specs, seeding=1),
                    self.plan.key(self.specs, legacy=True, seeding=1),
                )
                saved = int(
                    conn.execute(
                        "SELECT COUNT(*) FROM clue_games g JOIN clue_runs r ON r.id = g.run_id "
                        "WHERE r.key IN (?, ?, ?) AND g.idx < ?",
                        (*keys, self.plan.games),
                    ).fetchone()[0]
                )
            conn.close()
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
