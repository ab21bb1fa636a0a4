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


@dataclass
class Moments:
    """Count, sum and sum of squares: a mean and its Student-t interval without keeping the values."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, value: float, count: int = 1) -> None:
        self.n += count
        self.total += value * count
        self.squares += value * value * count

    def add_sums(self, n: int, total: float, squares: float) -> None:
        self.n += n
        self.total += total
        self.squares += squares


def student_t_moments(m: Moments, confidence: float = 0.95) -> Estimate:
    """`student_t` from streamed moments (same estimate, memory independent of the number of values)."""
    if m.n == 0:
        return Estimate(None, None, None, 0)
    mean = m.total / m.n
    var = (m.squares - m.total * m.total / m.n) / (m.n - 1) if m.n > 1 else 0.0
    if m.n == 1 or var <= 1e-12 * max(1.0, mean * mean):
        return Estimate(mean, mean, mean, m.n)
    low, high = stats.t.interval(confidence, m.n - 1, loc=mean, scale=(var / m.n) ** 0.5)
    return Estimate(mean, float(low), float(high), m.n)


BLOCK = 2_000_000  # resampled values in memory at once in `cluster_bootstrap`


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
    # Resamples are drawn a block at a time (an even number of rows, so the generator's stream is
    # the same as one big draw): memory stays near BLOCK values however many games there are.
    rows = max(2, (BLOCK // len(pairs)) & ~1)
    ratios = np.empty(resamples)
    for start in range(0, resamples, rows):
        idx = rng.integers(0, len(pairs), size=(min(rows, resamples - start), len(pairs)))
        ratios[start : start + len(idx)] = k[idx].sum(axis=1) / n[idx].sum(axis=1)
    alpha = (1 - confidence) / 2
    return Estimate(
        rate, float(np.quantile(ratios, alpha)), float(np.quantile(ratios, 1 - alpha)), int(total)
    )


def welch_one_sided(a: Sequence[float], b: Sequence[float]) -> float | None:
    """p-value of H1: mean(a) > mean(b) under Welch's t-test."""
    if len(a) < 2 or len(b) < 2:
        return None
    result = stats.ttest_ind(a, b, equal_var=False, alternative="greater")
    return None if np.isnan(result.pvalue) else float(result.pvalue)
