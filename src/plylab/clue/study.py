"""Plans and runs Clue games into the store: `plylab clue run` and `plylab clue study`.

A run is identified by (condition, seed, turn limit, specs): running the same command again
plays only the games not yet stored, and asking for more games extends the run. Game `i` has
seed derive_seed(seed, i), so which games were played before never changes the others.

Each game is a `ClueJob` handed to a harness executor (`local` by default, or `ray`), so Clue
games run wherever tic-tac-toe games do; results come back here, to the one store writer.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..errors import UserError
from ..players import RunContext
from ..specs import parse_spec
from .engine import DEFAULT_TURN_LIMIT
from .players import ClueContext, clue_player_class
from .session import GameLog, derive_seed, play_game
from .store import ClueStore

CONDITIONS = ("baseline", "matrix", "mixed")
MIN_PLAYERS, MAX_PLAYERS = 3, 6


def canonical(spec_text: str) -> str:
    """One spelling per spec (options sorted), so reports group equal players together."""
    spec = parse_spec(spec_text, kind="Clue player spec")
    if not spec.options:
        return spec.name
    return spec.name + ":" + ",".join(f"{k}={v}" for k, v in sorted(spec.options.items()))


def study_specs(condition: str, models: list[str], *, temperature: float | None = None, max_tokens: int | None = None) -> list[str]:
    """Three seats per model: all baseline, all matrix, or (mixed) one matrix and two baseline."""
    if condition not in CONDITIONS:
        raise UserError(f"unknown condition '{condition}'; accepted: {', '.join(CONDITIONS)}")
    if not models:
        raise UserError("give at least one --model")
    if not MIN_PLAYERS <= 3 * len(models) <= MAX_PLAYERS:
        raise UserError(f"a study seats three players per model, so it takes 1 or 2 models, not {len(models)}")
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
            raise UserError(f"Clue takes {MIN_PLAYERS} to {MAX_PLAYERS} players (one --player per seat), got {len(self.specs)}")
        if self.games < 1:
            raise UserError(f"--games must be at least 1, got {self.games}")
        if self.turn_limit < 1:
            raise UserError(f"--turn-limit must be at least 1, got {self.turn_limit}")
        if self.concurrency < 1:
            raise UserError(f"--parallel must be at least 1, got {self.concurrency}")
        specs = []
        for text in self.specs:
            _, cls, options = clue_player_class(text)
            cls.prepare(options)
            specs.append(canonical(text))
        return specs

    def key(self, specs: list[str]) -> str:
        body = json.dumps([self.condition, self.seed, self.turn_limit, specs])
        return f"{self.condition}/seed{self.seed}/{hashlib.sha256(body.encode()).hexdigest()[:12]}"


@dataclass
class RunOutcome:
    run_id: int
    key: str
    played: int
    skipped: int
    wins: dict[str, int] = field(default_factory=dict)


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

    async def play(self, context: RunContext) -> ClueResult:
        clue_context = ClueContext(job_key=self.key, cache=context.cache)
        log = await play_game(list(self.specs), self.seed, turn_limit=self.turn_limit, context=clue_context)
        return ClueResult(self.index, log)


async def run_plan(
    plan: RunPlan,
    store_path: str | Path,
    *,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
) -> RunOutcome:
    """Play the plan's missing games on `backend` (`local`, or `ray` joining `address` or starting
    a local instance) and save each one as it ends."""
    from ..harness.executor import ExecOptions, make_executor

    specs = plan.validate()
    if address is not None and backend != "ray":
        raise UserError("--address is for the ray backend (add --backend ray)")
    options = ExecOptions(concurrency=plan.concurrency, address=address, run_dir=str(Path(store_path).parent), workers=0)
    executor = make_executor(backend, options)  # unknown backend, missing Ray: one line, nothing written
    store = ClueStore(store_path)
    cache = None
    try:
        key = plan.key(specs)
        run_id = store.open_run(key, plan.condition, plan.seed, plan.turn_limit, specs)
        todo = [i for i in range(plan.games) if i not in store.finished(run_id)]
        model = any(clue_player_class(s)[1].uses_model for s in specs)
        if model:
            from ..models import ResponseCache

            cache = ResponseCache.open(store_path)
        jobs = [
            ClueJob(f"{key}/{i}", i, tuple(specs), derive_seed(plan.seed, i), plan.turn_limit, model) for i in todo
        ]
        outcome = RunOutcome(run_id, key, 0, plan.games - len(todo))
        columns = (TextColumn("clue {task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=Console(stderr=True), disable=not progress, transient=False) as bar:
            task = bar.add_task(key, total=len(todo))

            def saved(result: ClueResult) -> None:
                log = result.log
                store.save_game(run_id, result.index, log)
                outcome.played += 1
                if log.winner is not None:
                    winner = log.seats[log.winner]
                    outcome.wins[winner] = outcome.wins.get(winner, 0) + 1
                bar.advance(task)

            await executor.run(jobs, RunContext(store_path=Path(store_path), cache=cache), saved, lambda: True)  # type: ignore[arg-type]
        return outcome
    finally:
        if cache is not None:
            cache.close()
        store.close()
