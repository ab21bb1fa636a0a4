"""Interval estimates used across reports.

Wilson for proportions (as the paper), Student-t for means, and a game-level cluster bootstrap
for per-move rates: moves within one game are not independent, so the paper's Wilson interval
on moves is optimistic; we report both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class Estimate:
    rate: float | None
    low: float | None
    high: float | None
    n: int

    def as_dict(self) -> dict[str, float | int | None]:
        return asdict(self)


def wilson(successes: int, n: int, confidence: float = 0.95) -> Estimate:
    if n == 0:
        return Estimate(None, None, None, 0)
    ci = stats.binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return Estimate(successes / n, float(ci.low), float(ci.high), n)


def student_t(values: Sequence[float], confidence: float = 0.95) -> Estimate:
    n = len(values)
    if n == 0:
        return Estimate(None, None, None, 0)
    arr = np.asarray(values, dtype=float)
    mean = float(arr.mean())
    if n == 1 or float(arr.std(ddof=1)) == 0.0:
        return Estimate(mean, mean, mean, n)
    low, high = stats.t.interval(confidence, n - 1, loc=mean, scale=stats.sem(arr))
    return Estimate(mean, float(low), float(high), n)


def cluster_bootstrap(
    clusters: Sequence[tuple[int, int]], confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> Estimate:
    """Ratio estimate sum(k)/sum(n) over clusters (games), resampling whole games."""
    pairs = [(k, n) for k, n in clusters if n > 0]
    total = sum(n for _, n in pairs)
    if total == 0:
        return Estimate(None, None, None, 0)
    k = np.array([p[0] for p in pairs], dtype=float)
    n = np.array([p[1] for p in pairs], dtype=float)
    rate = float(k.sum() / n.sum())
    if len(pairs) == 1:
        return Estimate(rate, rate, rate, int(total))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(pairs), size=(resamples, len(pairs)))
    ratios = k[idx].sum(axis=1) / n[idx].sum(axis=1)
    alpha = (1 - confidence) / 2
    return Estimate(rate, float(np.quantile(ratios, alpha)), float(np.quantile(ratios, 1 - alpha)), int(total))


def welch_one_sided(a: Sequence[float], b: Sequence[float]) -> float | None:
    """p-value of H1: mean(a) > mean(b) under Welch's t-test."""
    if len(a) < 2 or len(b) < 2:
        return None
    result = stats.ttest_ind(a, b, equal_var=False, alternative="greater")
    return None if np.isnan(result.pvalue) else float(result.pvalue)
