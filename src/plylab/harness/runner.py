"""Run a plan against a store: skip finished games, play the rest, save each one as it ends."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ..players import RunContext
from .executor import ExecOptions, make_executor, uses_model
from .plan import Plan
from .store import GameRecord, Store


@dataclass
class RunSummary:
    run: str
    store: Path
    planned: int
    already: int
    played: int
    status: str  # finished | interrupted | stopped
    reason: str | None = None  # why a stopped run stopped (e.g. a budget)

    @property
    def saved(self) -> int:
        return self.already + self.played

    def line(self) -> str:
        left = self.planned - self.saved
        tail = "" if left == 0 else f"; {left} left — re-run the same command to resume"
        why = f" ({self.reason})" if self.reason else ""
        return (
            f"run '{self.run}' {self.status}{why}: {self.saved}/{self.planned} games saved in {self.store} "
            f"({self.played} played now, {self.already} already there){tail}"
        )


def _open_cache(store_path: Path, plan: Plan):
    """The response cache lives in the store; only runs with a model player need it."""
    if not any(uses_model(j) for j in plan.jobs()[:: max(1, plan.games)]):
        return None
    from ..models import ResponseCache  # imported lazily: classic runs never load the model stack

    return ResponseCache.open(store_path)


def run_plan(
    plan: Plan,
    store_path: Path,
    *,
    backend: str = "local",
    options: ExecOptions | None = None,
    progress: bool = True,
    budget: object | None = None,
) -> RunSummary:
    """Play what the store lacks of `plan`. `budget` (see budget.Budget) may stop new games early;
    Ctrl-C stops at once. Either way every finished game is saved, and re-running resumes."""
    executor = make_executor(backend, options or ExecOptions())  # a missing backend writes nothing
    store = Store(store_path)
    run_id = store.open_run(plan.name, plan.seed, plan.to_dict())
    done = store.finished_keys(run_id)
    todo = [j for j in plan.jobs() if j.key not in done]
    summary = RunSummary(plan.name, store_path, len(plan.jobs()), len(done), 0, "finished")
    if budget is not None and hasattr(budget, "resume"):
        budget.resume(store.conn, run_id)  # a resumed run has already spent what its saved games used
    context = RunContext(store_path=store_path, cache=_open_cache(store_path, plan) if todo else None)
    should_start = getattr(budget, "allows_new_game", lambda: True)

    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TimeRemainingColumn(), disable=not progress, transient=False,
    ) as bar:
        task = bar.add_task(plan.name[:48], total=summary.planned, completed=summary.already)

        def on_result(rec: GameRecord) -> None:
            # Durable first, counted second.
            if store.save_game(run_id, rec):
                summary.played += 1
                if budget is not None:
                    budget.charge(rec)  # type: ignore[attr-defined]
            bar.advance(task)

        try:
            asyncio.run(executor.run(todo, context, on_result, should_start))
        except KeyboardInterrupt:
            summary.status = "interrupted"
        except BaseException as exc:
            store.finish_run(run_id, "failed", f"{type(exc).__name__}: {exc}"[:500])
            _close(store, context)
            raise
    if summary.status == "finished" and summary.saved < summary.planned:
        summary.status = "stopped"
        summary.reason = getattr(budget, "reason", None)
    store.finish_run(run_id, summary.status, summary.reason)
    _close(store, context)
    return summary


def _close(store: Store, context: RunContext) -> None:
    if context.cache is not None:
        context.cache.close()
    store.close()
