"""Paired comparisons of two players on the same items (a suite's positions).

Rates: McNemar's test in its exact binomial form: of the discordant items (one player right, the
other wrong), how many went each way, against a fair coin (scipy.stats.binomtest(b, b + c, 0.5),
two-sided), with the paired difference of rates and its Wald interval for paired proportions.
Losses: a paired bootstrap of the mean difference (items resampled with their pair), seeded, with a
percentile interval and the two-sided bootstrap p-value.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from ..jsontypes import JSONObject


@dataclass(frozen=True)
class Paired:
    """A paired difference (first minus second) with its interval and p-value over `n` items."""

    difference: float
    low: float
    high: float
    p: float
    n: int

    def to_json(self) -> JSONObject:
        return {"difference": self.difference, "low": self.low, "high": self.high, "p": self.p, "n": self.n}


def binomial_two_sided(k: int, n: int) -> float:
    """P-value of k successes in n fair trials, two-sided (as scipy's binomtest for p = 1/2)."""
    if n == 0:
        return 1.0
    low = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(low + 1)) / 2.0**n
    return min(1.0, 2.0 * tail) if 2 * low != n else 1.0


def mcnemar(first: Sequence[bool], second: Sequence[bool], confidence: float = 0.95) -> Paired:
    """Paired optimal-move rates: the difference of rates, its interval, McNemar's exact p-value."""
    if len(first) != len(second):
        raise ValueError("paired samples differ in length")
    n = len(first)
    b = sum(1 for x, y in zip(first, second, strict=True) if x and not y)
    c = sum(1 for x, y in zip(first, second, strict=True) if y and not x)
    if n == 0:
        return Paired(0.0, 0.0, 0.0, 1.0, 0)
    diff = (b - c) / n
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    se = math.sqrt(max(0.0, (b + c) - (b - c) ** 2 / n)) / n
    return Paired(diff, max(-1.0, diff - z * se), min(1.0, diff + z * se), binomial_two_sided(b, b + c), n)


def paired_bootstrap(
    first: Sequence[float],
    second: Sequence[float],
    *,
    resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Paired:
    """The mean paired difference, its percentile interval and two-sided p-value, items resampled."""
    if len(first) != len(second):
        raise ValueError("paired samples differ in length")
    diffs = [x - y for x, y in zip(first, second, strict=True)]
    n = len(diffs)
    if n == 0:
        return Paired(0.0, 0.0, 0.0, 1.0, 0)
    rng = random.Random(seed)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    alpha = (1 - confidence) / 2
    low = means[int(alpha * (resamples - 1))]
    high = means[int((1 - alpha) * (resamples - 1))]
    below = sum(1 for m in means if m <= 0) / resamples
    above = sum(1 for m in means if m >= 0) / resamples
    return Paired(sum(diffs) / n, low, high, min(1.0, 2 * min(below, above)), n)
