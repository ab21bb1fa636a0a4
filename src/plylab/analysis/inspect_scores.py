"""Ground truth as inspect scores: one game's grades, from the player's side, on the one graded scale.

The same figures for a game played by an inspect task (`plylab/game`) and for a stored game that
`plylab export --format inspect` writes, so both logs show the grades plylab's own tables show:

- `optimal`: the share of the player's informative graded decisions where it played a best move
  (informative: not every graded move was as good as the best, as the paper excludes all-optimal
  states, 003 l.62); NaN (inspect's "unscored") where it had none;
- `loss`: its mean loss per informative decision on the scale (`oracles.graded.Grade.loss`: exact
  values as an expected score, the equilibrium's payoff given up, the engine's expected score);
- `outcome`: 1 win, 1/2 draw, 0 loss or failure; `failure`: 1 where the player forfeited;
- for an engine's games (chess), lichess's `acpl` and `accuracy` of the player's side (analysis.chess).

The score's metadata names the scale (`exact`, `equilibrium` or `engine`) and who grades (`source`),
and keeps the counts the pooled metrics read: `wilson` pools decisions over the samples (the rate and
Wilson interval plylab prints), inspect's `mean` and `stderr` average the games.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

# at module level: inspect reads the metric's and the scorer's type hints when it calls them
from inspect_ai.log import EvalScore
from inspect_ai.scorer import Metric, SampleScore, Score, Value, mean, metric, stderr

from ..oracles.graded import Grade, StoredGrade
from .stats import wilson

OUTCOME_VALUE = {"win": 1.0, "draw": 0.5, "loss": 0.0, "failure": 0.0}
NAN = float("nan")


@dataclass(frozen=True)
class Graded:
    """One move as the figures need it (a `MoveRow`, as stored or as a sample's metadata holds it)."""

    ply: int
    seat: int
    action: int | None
    grade: Grade | None
    failure: str | None


def graded(
    ply: int, seat: int, action: int | None, grade: StoredGrade | str | None, failure: str | None
) -> Graded:
    """A move's fields, its stored grade (a dict, or the store's JSON text) read back as a `Grade`."""
    read = None if grade is None else Grade.from_json(grade if isinstance(grade, str) else dict(grade))
    return Graded(ply, seat, action, read, failure)


@dataclass(frozen=True)
class GameScore:
    """One game's figures from the player's side (module doc); `value` is the inspect score's value."""

    value: dict[str, float]
    outcome: str  # win, draw, loss or failure: the score's answer
    scale: str | None
    source: str | None
    decisions: int  # the player's graded decisions
    informative: int
    best: int  # informative decisions where a best move was played
    loss_sum: float
    failed_moves: int

    def metadata(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            "source": self.source,
            "decisions": self.decisions,
            "informative": self.informative,
            "best": self.best,
            "loss_sum": self.loss_sum,
            "failed_moves": self.failed_moves,
        }

    def explanation(self) -> str:
        if self.scale is None:
            return "no move of the player was graded (no ground truth here)"
        rate = f"{self.best}/{self.informative} informative decisions optimal" if self.informative else ""
        loss = f"mean loss {self.loss_sum / self.informative:.4g}" if self.informative else ""
        said = ", ".join(x for x in (rate, loss) if x) or "no informative decision"
        return f"{said} on the {self.scale} scale ({self.source})"


def scale_of(grade: Grade) -> str:
    """The kind of ground truth a grade comes from, as `GameDef.ground_truth.kind` names it."""
    if grade.unit == "payoff":
        return "equilibrium"
    return "exact" if grade.exact else "engine"


def game_score(
    moves: Sequence[Graded], seat: int, outcome: str, forfeit_by: int | None, chess: bool = False
) -> GameScore:
    """The player's (in `seat`) figures over one game's moves (module doc)."""
    mine = [m for m in moves if m.seat == seat]
    pairs = [(m.grade, m.action) for m in mine if m.grade is not None and m.action is not None]
    informative = [(g, a) for g, a in pairs if g.informative]
    best = sum(1 for g, a in informative if g.is_best(a))
    loss_sum = sum(g.loss(a) for g, a in informative)
    n = len(informative)
    value = {
        "optimal": best / n if n else NAN,
        "loss": loss_sum / n if n else NAN,
        "outcome": OUTCOME_VALUE.get(outcome, 0.0),
        "failure": 1.0 if forfeit_by == seat else 0.0,
    }
    if chess:
        value |= chess_figures(moves, seat)
    first = pairs[0][0] if pairs else None
    return GameScore(
        value=value,
        outcome=outcome,
        scale=None if first is None else scale_of(first),
        source=None if first is None else first.source,
        decisions=len(pairs),
        informative=n,
        best=best,
        loss_sum=loss_sum,
        failed_moves=sum(1 for m in mine if m.failure is not None),
    )


def chess_figures(moves: Sequence[Graded], seat: int) -> dict[str, float]:
    """lichess's ACPL and accuracy of `seat`'s side, from every engine-graded move of the game (both
    sides': lichess pairs the evaluations before and after each move); NaN where none."""
    from .chess import LichessGame, graded_ply

    plies = [
        graded_ply(m.ply, m.seat, m.grade)
        for m in moves
        if m.grade is not None and m.action is not None and "played" in m.grade.detail
    ]
    if not plies:
        return {"acpl": NAN, "accuracy": NAN}
    white_seat = next((p.seat if p.white else 1 - p.seat for p in plies), 0)
    game = LichessGame.of(plies)
    acpl, accuracy = game.acpl(seat == white_seat), game.accuracy(seat == white_seat)
    return {
        "acpl": NAN if acpl is None else float(acpl),
        "accuracy": NAN if accuracy is None else accuracy,
    }


def inspect_score(figures: GameScore) -> Score:
    return Score(
        value=dict(figures.value),
        answer=figures.outcome,
        explanation=figures.explanation(),
        metadata=figures.metadata(),
    )


@metric(name="wilson")
def wilson_metric() -> Metric:
    """The optimal-move rate pooled over every informative decision of the samples, with its 95% Wilson
    interval (`analysis.stats.wilson`, as plylab's tables print it): `wilson_rate`, `_low`, `_high`.
    Registered when this module is imported (`plylab/wilson`), so `inspect score` finds it."""

    def compute(scores: list[SampleScore]) -> Value:
        meta = [s.score.metadata or {} for s in scores]
        e = wilson(sum(int(m.get("best", 0)) for m in meta), sum(int(m.get("informative", 0)) for m in meta))
        return {
            "rate": NAN if e.rate is None else e.rate,
            "low": NAN if e.low is None else e.low,
            "high": NAN if e.high is None else e.high,
        }

    return compute


# Each score key's metrics: games averaged with inspect's `mean` and `stderr`; the optimal rate also
# pooled over decisions with its Wilson interval. The chess keys apply only where a score has them
# (inspect matches a metric's key against the scores' keys, as a glob).
METRICS: dict[str, list[Metric]] = {
    "optimal": [mean(), stderr(), wilson_metric()],
    "loss": [mean(), stderr()],
    "outcome": [mean(), stderr()],
    "failure": [mean()],
    "acpl": [mean(), stderr()],
    "accuracy": [mean(), stderr()],
}


def is_nan(value: object) -> bool:
    return isinstance(value, float) and math.isnan(value)


def metric_results(scores: Sequence[Score], scorer_name: str = "ground_truth") -> list[EvalScore]:
    """The log's results for scores written without an eval (`plylab export --format inspect`):
    each key's metrics (`METRICS`, the keys the scores have) over the samples that key scored, NaN
    left out as inspect leaves it out, named as inspect names them (`mean`, `stderr`, `plylab/wilson_low`, ...)."""
    from inspect_ai._util.registry import registry_log_name
    from inspect_ai.log import EvalMetric

    if not scores:
        return []
    keys = dict(scores[0].value)  # type: ignore[arg-type]
    out = []
    for key, listed in METRICS.items():
        if key not in keys:
            continue
        kept = [
            SampleScore(score=s.model_copy(update={"value": v}), sample_id=i)
            for i, s in enumerate(scores)
            if not is_nan(v := dict(s.value)[key])  # type: ignore[arg-type]
        ]
        found: dict[str, EvalMetric] = {}
        for m in listed:
            name = registry_log_name(m)
            value = cast(Any, m)(kept) if kept else NAN  # Metric: a protocol of two call signatures
            if isinstance(value, dict):
                for part, v in value.items():
                    found[f"{name}_{part}"] = EvalMetric(name=part, group=name.split("/")[-1], value=float(v))
            else:
                found[name] = EvalMetric(name=name, value=float(value))
        out.append(
            EvalScore(
                name=key,
                scorer=scorer_name,
                scored_samples=len(kept),
                unscored_samples=len(scores) - len(kept),
                metrics=found,
            )
        )
    return out
