"""Rates and paired tests when each item (a suite's position) is answered several times.

`suite run --repeats N` asks every position N times. The answers to one position are not
independent trials: a player that answers the same every time (a deterministic one) gives N copies
of one observation, and counting them as N would narrow every interval by about sqrt(N) and shrink
every p-value without measuring anything new. The position is the unit here, as the game is the unit
of the game-clustered intervals (`stats.cluster_bootstrap`); the repeats measure how a player varies
on a position, not positions the suite lacks.

- A rate: the share of all answers that were optimal, with Wilson's interval on the effective number
  of positions (Kish's, from the spread of the positions' own rates: the variance of the rate with
  positions resampled). It lies between the positions (a player that answers each position the same
  every time: the interval of answering once) and the answers (answers that vary within a position as
  much as across positions).
- A paired difference: per position, the first player's optimal answers minus the second's over
  the repeats both gave; the mean of the positions' differences with the Wald interval over positions;
  its p-value by the exact sign-flip (randomisation) test over positions, which is McNemar's exact test
  when each position's paired answers agree (one answer each, or deterministic players) and, beyond
  `EXACT_STEPS`, its normal approximation (the clustered McNemar test of Durkalski et al., 2003).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

from .paired import Paired, binomial_two_sided
from .stats import Estimate

EXACT_STEPS = 20_000_000  # positions x outcomes the exact sign-flip test walks before it approximates


def repeated_rate(items: Sequence[tuple[int, int]], confidence: float = 0.95) -> Estimate:
    """(optimal answers, answers) per position: the rate over all answers, Wilson's interval on the
    effective number of positions; the estimate's `n` is the positions."""
    items = [(k, m) for k, m in items if m > 0]
    positions, answers = len(items), sum(m for _, m in items)
    if not positions:
        return Estimate(None, None, None, 0)
    rate = sum(k for k, _ in items) / answers
    mean = answers / positions
    # the ratio estimator's variance with positions as the sampled units (positions^2 in the
    # denominator, as the paired Wald interval has, so that agreeing repeats give exactly `positions`)
    spread = sum((k - rate * m) ** 2 for k, m in items) / (positions * mean) ** 2
    binomial = rate * (1 - rate)
    if binomial == 0:  # every answer right (or every one wrong): as if each position answered once
        effective = float(positions)
    else:  # no spread across positions at all: as many as the answers, never more
        effective = answers if spread == 0 else min(answers, binomial / spread)
    z = NormalDist().inv_cdf((1 + confidence) / 2)  # Wilson's score interval at `effective` trials
    centre = rate + z * z / (2 * effective)
    half = z * (binomial / effective + z * z / (4 * effective * effective)) ** 0.5
    scale = 1 + z * z / effective
    return Estimate(rate, max(0.0, (centre - half) / scale), min(1.0, (centre + half) / scale), positions)


def repeated_paired(items: Sequence[tuple[int, int]], confidence: float = 0.95) -> Paired:
    """(first's optimal answers minus second's, paired answers) per position: the mean of the
    positions' rate differences, its Wald interval over positions, the sign-flip test's p-value;
    `n` is the positions."""
    items = [(k, m) for k, m in items if m > 0]
    n = len(items)
    if n == 0:
        return Paired(0.0, 0.0, 0.0, 1.0, 0)
    diffs = [k / m for k, m in items]
    diff = sum(diffs) / n
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    se = math.sqrt(sum((d - diff) ** 2 for d in diffs)) / n
    low, high = max(-1.0, diff - z * se), min(1.0, diff + z * se)
    return Paired(diff, low, high, sign_flip_p([k for k, _ in items]), n)


def sign_flip_p(differences: Sequence[int]) -> float:
    """Two-sided p-value of sum(differences) when each position's sign is a fair coin under the null
    (the two players' labels exchangeable within a position): exact where its distribution has at
    most EXACT_STEPS cells to walk, else its normal approximation. With differences of -1, 0 and 1
    it is McNemar's exact test (`paired.binomial_two_sided`)."""
    sizes = [abs(k) for k in differences if k]
    if not sizes:
        return 1.0
    if max(sizes) == 1:  # McNemar's case: the binomial on the discordant positions, in whole numbers
        return binomial_two_sided(sum(1 for k in differences if k > 0), len(sizes))
    observed = abs(sum(differences))
    reach = sum(sizes)
    if len(sizes) * (2 * reach + 1) > EXACT_STEPS:
        chi = observed / math.sqrt(sum(k * k for k in sizes))
        return min(1.0, 2 * (1 - NormalDist().cdf(chi)))
    import numpy as np

    dist = np.zeros(2 * reach + 1)
    dist[reach] = 1.0  # the sum's distribution, index = sum + reach
    for k in sizes:
        moved = np.zeros_like(dist)
        moved[k:] += dist[:-k]
        moved[:-k] += dist[k:]
        dist = moved * 0.5
    sums = np.abs(np.arange(-reach, reach + 1))
    return float(min(1.0, dist[sums >= observed].sum()))
