"""The learning protocol (`plylab learn`): runs of learn/evaluate phases over an evolving memory.

Where things live. Every phase is a store run of kind `learn` (name `<experiment>/run<r>/<phase>`,
the phase in its plan), so `plylab report` reads its games like any other. Each run's memory is a
folder beside the store, `<store stem>.memory/<experiment>/run<r>/`: `checkpoint-<c>.sqlite`
is the memory frozen at checkpoint c (0 is empty) and `memory.sqlite` the latest, the artifact
that `reaper:memory=PATH` plays.

Why a resumed run reaches exactly the memory it would have had. A checkpoint file is written
(atomically) only once its learning phase is complete: games saved, rules extracted. A learning
phase that was interrupted restarts from the previous checkpoint and replays its games in order;
every model call (decisions, reflections, rule extraction) is keyed by game job, ply and
component in the response cache, so the replayed games ask nothing new and rebuild the same
memory. Evaluation phases read their checkpoint read-only and resume game by game.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path

from ..errors import ProviderFailure, UserError
from ..games import get_game
from ..harness.budget import GameLimit
from ..harness.driver import RunSummary, exec_options, run_study
from ..harness.forecast import (
    Forecast,
    add_tokens,
    calls_per_move,
    model_of,
    moves_per_game,
    read_store,
)
from ..harness.plan import GameJob
from ..harness.records import GameRecord
from ..harness.store import Store
from ..harness.study import Part, StudyContext
from ..models.call import SEEDING
from ..players import RunContext, make_player
from ..players.canonical import canonical_spec
from ..players.reaper import CaseMemory, lend_memory
from ..seeds import derive_seed
from .schedule import Experiment, Phase, phase_of, planned_games, run_phases


def memory_root(store_path: Path, exp: Experiment) -> Path:
    return store_path.parent / f"{store_path.stem}.memory" / exp.slug


@dataclass(frozen=True)
class RunFiles:
    """One run's memory files."""

    folder: Path

    @property
    def latest(self) -> Path:
        return self.folder / "memory.sqlite"

    def checkpoint(self, c: int) -> Path:
        return self.folder / f"checkpoint-{c}.sqlite"


def _saved(result: object) -> bool:
    return False


def _kept(status: str, why: str | None) -> None:
    """A checkpointed phase's store run keeps the status it finished with."""


def copy_atomic(src: Path, dest: Path) -> None:
    partial = dest.with_name(dest.name + ".partial")
    shutil.copyfile(src, partial)
    partial.replace(dest)


class Learner:
    """An experiment as a study for the run driver: phase by phase, each phase a store run.

    `max_new_games` stops it early (a budget). Between learning and evaluation the memory is
    checkpointed; the driver records every phase's status, interrupted ones included."""

    kind = "learning"

    def __init__(
        self,
        exp: Experiment,
        store_path: Path,
        *,
        concurrency: int = 1,
        max_new_games: int | None = None,
        progress: bool = True,
        backend: str = "local",
        address: str | None = None,
    ) -> None:
        self.exp = exp.validate()
        self.backend = backend
        self.exec_options = exec_options(store_path, workers=1, address=address)
        self.store_path = store_path
        self.concurrency = concurrency
        self.limit = GameLimit(max_new_games) if max_new_games is not None else None
        self.progress = progress
        self.root = memory_root(store_path, exp)
        self.name = exp.label
        self.lease = f"learn:{exp.label}"
        self.planned = sum(planned_games(exp))
        self.memories: list[Path] = []
        self.seeding = SEEDING  # the per-call seed rule of the phase being played (its stored run's)
        self.rules: dict[str, object] = {"seeding": SEEDING}  # all its rules (Store.rules)

    def open_store(self, path: Path) -> Store:
        return Store(path)

    def details(self) -> list[str]:
        return [f"memories under {self.root}"]

    def forecast(self, store_path: Path) -> Forecast:
        """Games every phase still lacks; the agent's calls are a floor (a REAPER move makes several)."""
        conn = read_store(store_path)
        try:
            out = Forecast(self.kind, self.name, 0)
            exp = self.exp
            left = dict(zip(("agent", "reference"), planned_games(exp), strict=True))
            for run, saved in conn.saved_by_run(f"{exp.label}/").items():  # counted, not enumerated
                phase = phase_of(exp, run)
                if phase is not None:
                    kept = min(saved, phase.games)
                    out.saved += kept
                    left["reference" if phase.kind == "reference" else "agent"] -= kept
            out.games = sum(left.values())
            for role, games in left.items():
                spec = exp.reference if role == "reference" else exp.agent
                model = model_of(spec) if spec else None
                if spec and model is not None and games > 0:
                    load = out.load(model)
                    canonical = canonical_spec(spec)
                    seen = conn.mean_player_moves(exp.game, canonical)
                    moves = seen if seen is not None else moves_per_game(exp.game, load)
                    # a REAPER move makes one to several calls: expected, between its fewest and most
                    per_move, low, high = calls_per_move(conn, exp.game, canonical)
                    load.calls += games * moves * per_move
                    if high > low:
                        load.low = (load.low or 0) + games * moves * low
                        load.high = (load.high or 0) + games * moves * high
            add_tokens(out, conn, None, [])
            return out
        finally:
            conn.close()

    def run(self) -> RunSummary:
        return run_study(
            self, self.store_path, backend=self.backend, options=self.exec_options, progress=self.progress
        )

    async def parts(
        self, store: Store, context: StudyContext
    ) -> AsyncGenerator[Part[GameJob, GameRecord], None]:
        """Every run's phases in order; a learning phase's memory is checkpointed once it is complete."""
        self.store, self.context = store, context
        for r in range(self.exp.runs):
            files = RunFiles(self.root / f"run{r}")
            self.memories.append(files.latest)
            if not files.checkpoint(0).exists():
                files.latest.unlink(missing_ok=True)
                empty = CaseMemory.open(
                    files.latest, frozen=False, game=self.exp.game, formulation=self.exp.formulation
                )
                empty.snapshot(files.checkpoint(0))
                empty.close()
            for phase in run_phases(self.exp, r):
                if phase.kind == "learn":
                    done = files.checkpoint(phase.index)
                    if done.exists():  # checkpointed: its games are stored and its memory is kept
                        yield Part((), _saved, _kept, phase.games, already=phase.games, model=False)
                        continue
                    copy_atomic(files.checkpoint(phase.index - 1), files.latest)  # from the last checkpoint
                    part = self._phase(phase, files.latest, learn=True)
                    # the phase is finished only once its rules are extracted (failed if that fails)
                    part.after = functools.partial(self._consolidate, phase, files.latest)
                    yield part
                    if not part.complete:
                        return
                    copy_atomic(files.latest, done)
                else:
                    memory = files.checkpoint(phase.index) if phase.kind == "eval" else None
                    part = self._phase(phase, memory, learn=False)
                    yield part
                    if not part.complete:
                        return
            final = files.checkpoint(self.exp.epochs)
            if not files.latest.exists() or files.latest.read_bytes() != final.read_bytes():
                copy_atomic(final, files.latest)

    def _plan(self, phase: Phase, memory: Path | None) -> dict[str, object]:
        rel = None if memory is None else str(memory.relative_to(self.store_path.parent))
        return {
            "learn": self.exp.identity(),
            "run": phase.run,
            "phase": phase.kind,
            "index": phase.index,
            "games": phase.games,
            "player": phase.player(self.exp),
            "memory": rel,
        }

    def _phase(self, phase: Phase, memory: Path | None, *, learn: bool) -> Part[GameJob, GameRecord]:
        """A phase's missing games (a learning phase's all, in order, replayed from the cache)."""
        store = self.store
        run_id = store.open_run(
            phase.store_run(self.exp), phase.seed(self.exp), self._plan(phase, memory), kind="learn"
        )
        stored = store.saved(run_id)
        self.seeding = store.seeding(run_id)
        self.rules = store.rules(run_id)
        extra: dict[str, object] = dict(self.rules)
        if memory is not None:
            lend_memory(extra, self.exp.agent, memory, learn=learn)
        return Part(
            phase.jobs(self.exp, skip=() if learn else stored),
            lambda rec: store.save_game(run_id, rec),
            lambda status, why: store.finish_run(run_id, status, why),
            phase.games,
            already=0
            if learn
            else stored.count(),  # a learning phase counts only games played into this memory
            budget=self.limit,
            extra=extra,
            concurrency=1 if learn else self.concurrency,
            in_order=learn,
        )

    async def _consolidate(self, phase: Phase, memory: Path) -> None:
        """End of a learning phase: extract rules from the phase's new cases."""
        context = RunContext(store_path=self.store_path, cache=self.context.cache())
        context.extra.update(self.rules)
        lend_memory(context.extra, self.exp.agent, memory, learn=True)
        game = get_game(self.exp.game)
        player = make_player(self.exp.agent, game, derive_seed(phase.seed(self.exp), "rules"), context)
        key = f"{phase.job(self.exp, phase.games - 1).key}/phase-rules"
        try:
            await player.consolidate(game.formulation(self.exp.formulation), key)  # type: ignore[attr-defined]
        except ProviderFailure as failure:  # no checkpoint yet: a re-run replays the phase from the cache
            raise UserError(
                f"rule extraction after learning phase {phase.index} of run {phase.run} got no answer from "
                f"the provider ({failure}); every saved game is kept: re-run the same command to resume"
            ) from None
        finally:
            player.close()
