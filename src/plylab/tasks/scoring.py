"""The ground-truth scorers of plylab's inspect tasks: `analysis.inspect_scores`, named here where the
tasks use them (they live below, with the analysis, so `plylab export --format inspect` in reports
scores with them without standing on the tasks' floor)."""

from __future__ import annotations

from ..analysis.inspect_scores import (
    GameScore,
    Graded,
    game_score,
    graded,
    ground_truth,
    inspect_score,
    metric_results,
    metrics,
    scale_of,
    wilson_metric,
)

__all__ = [
    "GameScore",
    "Graded",
    "game_score",
    "graded",
    "ground_truth",
    "inspect_score",
    "metric_results",
    "metrics",
    "scale_of",
    "wilson_metric",
]
