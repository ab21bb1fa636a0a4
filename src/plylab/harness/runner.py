"""`plylab run`: a plan's games, described for the run driver; each game saved as it ends."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .backends import ExecOptions
from .budget import RunBudget
from .driver import Driver, RunSummary, storage_failure
from .plan import Plan
from .store import Store

__all__ = ["RunSummary", "run_plan"]


def run_plan(
    plan: Plan,
    store_path: Path,
    *,
    backend: str = "local",
    options: ExecOptions | None = None,
    progress: bool = True,
    budget: RunBudget | None = None,
) -> RunSummary:
    """Play what the store lacks of `plan`. `budget` may stop new games early; Ctrl-C or SIGTERM
    stops at once. Either way every finished game is saved, and re-running resumes."""
    store_path = Path(store_path)
    if plan.interactive:  # a person types the moves: no bar drawn over the prompt, one board at a time
        progress, options = False, replace(options or ExecOptions(), concurrency=1)
    with Driver(
        store_path, backend=backend, options=options, progress=progress, label=plan.name, total=plan.planned
    ) as driver:
        store = driver.open(Store)
        driver.claim(store.conn, f"play:{plan.name}")
        run_id = store.open_run(plan.name, plan.seed, plan.to_dict())
        done = store.saved(run_id)
        summary = RunSummary(plan.name, store_path, plan.planned, done.count(), 0, "finished")
        driver.advance(summary.already)
        if budget is not None:
            budget.resume(store.conn, run_id)  # a resumed run has already spent what its saved games used
        todo = plan.jobs(skip=done)
        model = summary.saved < summary.planned and plan.uses_model
        try:
            driver.run(
                driver.play(
                    todo,
                    lambda rec: store.save_game(run_id, rec),
                    model=model,
                    budget=budget,
                    extra={"seeding": store.seeding(run_id)},
                )
            )
        except Exception as exc:
            if storage_failure(exc) is None:
                store.finish_run(run_id, "failed", f"{type(exc).__name__}: {exc}"[:500])
            raise
        summary.played = done.count() - summary.already  # the store is the ledger, even after a signal
        if driver.interrupted:
            summary.status = "interrupted"
        elif summary.saved < summary.planned:
            summary.status, summary.reason = "stopped", budget.reason if budget is not None else None
        store.finish_run(run_id, summary.status, summary.reason)
    return summary
