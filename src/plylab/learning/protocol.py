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

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ..games import get_game
from ..harness.backends import ExecOptions
from ..harness.budget import GameLimit
from ..harness.driver import Driver
from ..harness.seeds import derive_seed
from ..harness.store import Store
from ..models.call import SEEDING
from ..players import RunContext, make_player
from ..players.reaper import CaseMemory, lend_memory
from .schedule import Experiment, Phase, run_phases


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


@dataclass
class LearnSummary:
    experiment: str
    store: Path
    planned: int
    played: int = 0  # new games
    replayed: int = 0  # learning games replayed from the response cache after an interruption
    skipped: int = 0  # games already stored
    status: str = "finished"  # finished | stopped | interrupted
    memories: list[Path] = field(default_factory=list)

    def line(self) -> str:
        tail = "" if self.status == "finished" else " — re-run the same command to resume"
        where = self.memories[0].parent.parent if self.memories else "-"
        return (
            f"learning '{self.experiment}' {self.status}: {self.played} games played, "
            f"{self.replayed} replayed from the cache, {self.skipped} already stored, in {self.store}; "
            f"memories under {where}{tail}"
        )


def copy_atomic(src: Path, dest: Path) -> None:
    partial = dest.with_name(dest.name + ".partial")
    shutil.copyfile(src, partial)
    partial.replace(dest)


class Learner:
    """Plays an experiment into a store, phase by phase; `max_new_games` stops it early (a budget)."""

    store: Store  # open while `run` runs
    driver: Driver

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
        self.exec_options = ExecOptions(address=address, run_dir=str(store_path.parent))
        self.store_path = store_path
        self.concurrency = concurrency
        self.limit = GameLimit(max_new_games) if max_new_games is not None else None
        self.progress = progress
        self.root = memory_root(store_path, exp)
        planned = sum(p.games for r in range(exp.runs) for p in run_phases(exp, r))
        self.summary = LearnSummary(exp.label, store_path, planned)
        self.seeding = SEEDING  # the per-call seed rule of the phase being played (its stored run's)

    def run(self) -> LearnSummary:
        with Driver(
            self.store_path,
            backend=self.backend,
            options=self.exec_options,
            progress=self.progress,
            label=self.exp.label,
            total=self.summary.planned,
        ) as driver:
            self.driver = driver
            self.store = driver.open(Store)
            driver.claim(self.store.conn, f"learn:{self.exp.label}")
            with driver.executor.session():  # Ray joined once, not per phase
                driver.run(self._all_runs())
            if driver.interrupted:
                self.summary.status = "interrupted"
        return self.summary

    async def _all_runs(self) -> None:
        for r in range(self.exp.runs):
            files = RunFiles(self.root / f"run{r}")
            self.summary.memories.append(files.latest)
            if not await self._one_run(r, files):
                self.summary.status = "stopped"
                return

    async def _one_run(self, r: int, files: RunFiles) -> bool:
        """Play (or resume) run r; False when it stopped early."""
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
                if done.exists():
                    self.driver.advance(phase.games)
                    continue
                copy_atomic(files.checkpoint(phase.index - 1), files.latest)  # from the last checkpoint
                if not await self._phase(phase, files.latest, learn=True):
                    return False
                await self._consolidate(phase, files.latest)
                copy_atomic(files.latest, done)
            else:
                memory = files.checkpoint(phase.index) if phase.kind == "eval" else None
                if not await self._phase(phase, memory, learn=False):
                    return False
        final = files.checkpoint(self.exp.epochs)
        if not files.latest.exists() or files.latest.read_bytes() != final.read_bytes():
            copy_atomic(final, files.latest)
        return True

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

    async def _phase(self, phase: Phase, memory: Path | None, *, learn: bool) -> bool:
        """Play a phase's missing games (a learning phase's all, in order); True when complete."""
        store = self.store
        run_id = store.open_run(
            phase.store_run(self.exp), phase.seed(self.exp), self._plan(phase, memory), kind="learn"
        )
        stored = store.saved(run_id)
        skipped = 0 if learn else stored.count()
        self.summary.skipped += skipped
        self.driver.advance(skipped)
        self.seeding = store.seeding(run_id)
        extra: dict[str, object] = {"seeding": self.seeding}
        if memory is not None:
            lend_memory(extra, self.exp.agent, memory, learn=learn)
        todo = phase.jobs(self.exp, skip=() if learn else stored)
        tally = await self.driver.play(
            todo,
            lambda rec: store.save_game(run_id, rec),
            model=True,
            budget=self.limit,
            extra=extra,
            concurrency=1 if learn else self.concurrency,
        )
        self.summary.played += tally.played
        self.summary.replayed += tally.replayed
        # a learning phase counts only games played into this memory
        complete = tally.played + tally.replayed + skipped == phase.games
        store.finish_run(run_id, "finished" if complete else "stopped")
        return complete

    async def _consolidate(self, phase: Phase, memory: Path) -> None:
        """End of a learning phase: extract rules from the phase's new cases."""
        context = RunContext(store_path=self.store_path, cache=self.driver.cache())
        context.extra["seeding"] = self.seeding
        lend_memory(context.extra, self.exp.agent, memory, learn=True)
        game = get_game(self.exp.game)
        player = make_player(self.exp.agent, game, derive_seed(phase.seed(self.exp), "rules"), context)
        key = f"{phase.job(self.exp, phase.games - 1).key}/phase-rules"
        try:
            await player.consolidate(game.formulation(self.exp.formulation), key)  # type: ignore[attr-defined]
        finally:
            player.close()
