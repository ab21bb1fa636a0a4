"""`plylab run`: a plan's games as a study for the run driver; each game saved as it ends."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass, replace
from pathlib import Path

from ..players.canonical import canonical_spec
from ..secrets import scrub_spec
from ..specs import parse_spec
from .backends import ExecOptions
from .budget import RunBudget
from .driver import RunSummary, run_study
from .forecast import (
    Forecast,
    TokenFigures,
    add_tokens,
    calls_per_move,
    model_of,
    moves_per_game,
    read_store,
    typical_moves,
)
from .plan import GameJob, Plan
from .records import GameRecord
from .store import Store
from .study import Part, StudyContext

__all__ = ["PlanStudy", "RunSummary", "run_plan"]


@dataclass
class PlanStudy:
    """A plan (matchups x games) played into one store run named after it."""

    plan: Plan
    budget: RunBudget | None = None
    kind: str = "run"
    # the published tokens per move of the paper table this plan reproduces (they forecast ours)
    paper: TokenFigures | None = None

    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def lease(self) -> str:
        return f"play:{self.plan.name}"

    @property
    def planned(self) -> int:
        return self.plan.planned

    def open_store(self, path: Path) -> Store:
        return Store(path)

    async def parts(
        self, store: Store, context: StudyContext
    ) -> AsyncGenerator[Part[GameJob, GameRecord], None]:
        plan = self.plan
        plan.check_store(store.path)  # a refusal here leaves no run behind
        run_id = store.open_run(plan.name, plan.seed, plan.to_dict())
        done = store.saved(run_id)
        if self.budget is not None:
            self.budget.resume(store, run_id)  # a resumed run has already spent what its saved games used
        yield Part(
            plan.jobs(skip=done),
            lambda rec: store.save_game(run_id, rec),
            lambda status, why: store.finish_run(run_id, status, why),
            plan.planned,
            already=done.count(),
            model=plan.uses_model,
            budget=self.budget,
            extra=store.rules(run_id),  # the run's per-call seed rule (models.call) and llm prompt
        )

    def details(self) -> list[str]:
        return []

    def forecast(self, store_path: Path) -> Forecast:
        """Games left to play and, per model, the calls (and tokens, cost) they should take."""
        conn = read_store(store_path)
        try:
            saved = conn.saved_games(self.plan.name)
            share = (self.plan.planned - saved) / self.plan.planned if self.plan.planned else 0.0
            out = Forecast(self.kind, self.name, self.plan.planned - saved, saved)
            columns: list[str] = []
            for m in self.plan.matchups:
                for spec in (m.player, m.opponent):
                    model = model_of(spec)
                    if model is None:
                        continue
                    load = out.load(model)
                    stored = scrub_spec(canonical_spec(spec))  # as moves store it
                    seen = conn.mean_player_moves(m.game, stored)
                    moves = seen if seen is not None else moves_per_game(m.game, load)
                    games = self.plan.games * share
                    # calls per move by the player's way of asking (majority:N asks N times) or loop
                    per_move, low, high = calls_per_move(conn, m.game, stored)
                    if seen is None and typical_moves(m.game) is None and parse_spec(spec).name == "llm":
                        load.mark, per_move = "≤", high  # a bound: the longest game, every re-ask made
                    elif high > low:
                        load.low = (load.low or 0) + games * moves * low
                        load.high = (load.high or 0) + games * moves * high
                    load.calls += games * moves * per_move
                    effort = parse_spec(spec).options.get("effort", "high")
                    columns += [m.formulation, f"tokens.{effort}"]
            add_tokens(
                out, conn, self.paper, columns, self.plan.matchups[0].game if self.plan.matchups else ""
            )
            return out
        finally:
            conn.close()


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
    if plan.interactive:  # a person types the moves: no bar drawn over the prompt, one board at a time
        progress, options = False, replace(options or ExecOptions(), concurrency=1)
    return run_study(PlanStudy(plan, budget), store_path, backend=backend, options=options, progress=progress)
