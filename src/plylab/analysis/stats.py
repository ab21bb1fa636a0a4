"""Interval estimates used across reports.

Wilson for proportions (as the paper), Student-t for means, and a game-level cluster bootstrap
for per-move rates: moves within one game are not independent, so the paper's Wilson interval
on moves is optimistic; we report both.

Wilson's interval is closed-form (stdlib); numpy and scipy load only where an estimate needs them
(scipy.stats alone costs about a second of start-up, which a `plylab report` should not pay).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from math import exp, fsum, lgamma, log, log1p
from statistics import NormalDist

from ..jsontypes import JSONObject

MIN_UNITS = 2  # the fewest independent units (runs, games, moves) an interval is printed from


def interval_holds(low: float | None, high: float | None, n: int | None) -> bool:
    """The one rule for printing an interval (docs/ground-truth.md, "Intervals"): it comes from at least
    MIN_UNITS independent units and has width. One run, one game or units that all agree give a
    zero-width "interval" that claims certainty the data cannot give; those print n instead."""
    return (n or 0) >= MIN_UNITS and low is not None and high is not None and high > low


def estimate_text(
    value: float, low: float | None, high: float | None, n: int | None, num: Callable[[float], str]
) -> str:
    """`value [low, high]` where the interval holds (`interval_holds`), `value (n=k)` otherwise:
    every table formats an estimate with its interval through this."""
    if interval_holds(low, high, n):
        assert low is not None and high is not None
        return f"{num(value)} [{num(low)}, {num(high)}]"
    return f"{num(value)} (n={n or 0})"


def bounded(e: Estimate, lo: float = 0.0, hi: float = float("inf")) -> Estimate:
    """`e` for a quantity that cannot leave [lo, hi] (a count, a loss, a score): its interval clipped
    there, so a count's Student-t interval never reads below zero."""
    if e.low is None or e.high is None:
        return e
    return Estimate(e.rate, max(lo, e.low), min(hi, e.high), e.n)


@dataclass(frozen=True)
class Estimate:
    """An estimate (a Wilson rate, a Student-t mean, a bootstrap ratio) over `n` units."""

    rate: float | None
    low: float | None
    high: float | None
    n: int

    @property
    def value(self) -> float | None:
        return self.rate

    @property
    def units(self) -> int | None:
        return self.n

    def as_dict(self) -> dict[str, float | int | None]:
        return asdict(self)

    def to_json(self) -> JSONObject:
        return {"rate": self.rate, "low": self.low, "high": self.high, "n": self.n}


def wilson(successes: int, n: int, confidence: float = 0.95) -> Estimate:
    """The Wilson score interval without continuity correction (scipy's `method="wilson"`)."""
    if n == 0:
        return Estimate(None, None, None, 0)
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    p = successes / n
    centre = p + z * z / (2 * n)
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    scale = 1 + z * z / n
    return Estimate(p, max(0.0, (centre - half) / scale), min(1.0, (centre + half) / scale), n)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz; Numerical Recipes 6.4)."""
    tiny, eps = 1e-300, 1e-16

    def guard(v: float) -> float:
        return tiny if abs(v) < tiny else v

    c, d = 1.0, 1 / guard(1 - (a + b) * x / (a + 1))
    h = d
    for m in range(1, 100_000):
        for aa in (
            m * (b - m) * x / ((a - 1 + 2 * m) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1 + 2 * m)),
        ):
            d = 1 / guard(1 + aa * d)
            c = guard(1 + aa / c)
            h *= d * c
        if abs(d * c - 1) < eps:
            break
    return h


def _t_tail(t: float, df: float) -> float:
    """P(T > t) for t >= 0 under Student's t with `df` degrees of freedom: I_x(df/2, 1/2) / 2."""
    x, a, b = df / (df + t * t), df / 2, 0.5
    if x >= 1.0:
        return 0.5
    front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a / 2
    return (1 - front * _beta_fraction(b, a, 1 - x) / b) / 2


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile for p in [0.6, 1): scipy's `stdtrit` agrees to a relative 1e-11.

    Computed here, not by scipy: importing scipy.special alone costs a report 0.3 s of start-up.
    Past 3,000 degrees of freedom the Cornish-Fisher series in 1/df (four terms) is that exact;
    below, bisection on the exact tail."""
    z = NormalDist().inv_cdf(p)
    if df > 3_000:
        z2 = z * z
        return z * (
            1
            + (z2 + 1) / (4 * df)
            + (5 * z2 * z2 + 16 * z2 + 3) / (96 * df**2)
            + (3 * z2**3 + 19 * z2 * z2 + 17 * z2 - 15) / (384 * df**3)
        )
    tail = 1 - p
    low, high = z, 2 * z + 1  # the t quantile is beyond the normal one
    while _t_tail(high, df) > tail:
        low, high = high, 2 * high
    while high - low > 1e-15 * high:
        mid = (low + high) / 2
        if mid in (low, high):
            break
        low, high = (mid, high) if _t_tail(mid, df) > tail else (low, mid)
    return (low + high) / 2


def _t_interval(confidence: float, df: int, mean: float, sem: float) -> tuple[float, float]:
    q = t_quantile((1 + confidence) / 2, df)
    return mean - q * sem, mean + q * sem


def student_t(values: Sequence[float], confidence: float = 0.95) -> Estimate:
    n = len(values)
    if n == 0:
        return Estimate(None, None, None, 0)
    mean = fsum(values) / n
    var = fsum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    if n == 1 or var == 0.0:
        return Estimate(mean, mean, mean, n)
    low, high = _t_interval(confidence, n - 1, mean, (var / n) ** 0.5)
    return Estimate(mean, low, high, n)


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
    low, high = _t_interval(confidence, m.n - 1, mean, (var / m.n) ** 0.5)
    return Estimate(mean, low, high, m.n)


BLOCK = 2_000_000  # resampled values in memory at once in `cluster_bootstrap`
SMALL = 256  # up to this many games the bootstrap runs in plain Python: a small report needs no numpy


def cluster_bootstrap(
    clusters: Sequence[tuple[float, int]], confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> Estimate:
    """Ratio estimate sum(k)/sum(n) over clusters (games), resampling whole games (k may be a sum of
    values, such as a game's expected losses, not only a count).

    Seeded, so the same games always give the same interval: up to SMALL games with the standard
    library's generator (numpy's import would be most of a small report's start-up), above with
    numpy's, vectorised."""
    pairs = [(k, n) for k, n in clusters if n > 0]
    total = sum(n for _, n in pairs)
    if total == 0:
        return Estimate(None, None, None, 0)
    rate = sum(k for k, _ in pairs) / total
    if len(pairs) == 1:
        return Estimate(rate, rate, rate, int(total))
    alpha = (1 - confidence) / 2
    if len(pairs) <= SMALL:
        ratios = _ratios_small(pairs, resamples, seed)
        return Estimate(rate, _quantile(ratios, alpha), _quantile(ratios, 1 - alpha), int(total))
    import numpy as np

    k = np.array([p[0] for p in pairs], dtype=float)
    n = np.array([p[1] for p in pairs], dtype=float)
    rng = np.random.default_rng(seed)
    # Resamples are drawn a block at a time (an even number of rows, so the generator's stream is
    # the same as one big draw): memory stays near BLOCK values however many games there are.
    rows = max(2, (BLOCK // len(pairs)) & ~1)
    big = np.empty(resamples)
    for start in range(0, resamples, rows):
        idx = rng.integers(0, len(pairs), size=(min(rows, resamples - start), len(pairs)))
        big[start : start + len(idx)] = k[idx].sum(axis=1) / n[idx].sum(axis=1)
    return Estimate(rate, float(np.quantile(big, alpha)), float(np.quantile(big, 1 - alpha)), int(total))


def _ratios_small(pairs: list[tuple[float, int]], resamples: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    ks, ns, games = [k for k, _ in pairs], [n for _, n in pairs], range(len(pairs))
    out = []
    for _ in range(resamples):
        idx = rng.choices(games, k=len(pairs))
        out.append(sum(ks[i] for i in idx) / sum(ns[i] for i in idx))
    return sorted(out)


def _quantile(ordered: list[float], q: float) -> float:
    """numpy's default (linear) quantile of a sorted list."""
    pos = q * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def welch_one_sided(a: Sequence[float], b: Sequence[float]) -> float | None:
    """p-value of H1: mean(a) > mean(b) under Welch's t-test."""
    if len(a) < 2 or len(b) < 2:
        return None
    from scipy import stats

    result = stats.ttest_ind(a, b, equal_var=False, alternative="greater")
    p = float(result.pvalue)
    return None if p != p else p  # NaN: no variance in either sample
