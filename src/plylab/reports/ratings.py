"""Bradley-Terry ratings on the Elo scale, so LLMs and classic bots share one ladder.

Every stored game is one comparison between its two player specs (a draw is half a win each, a
failure a loss for the side that failed). The strengths are the maximum of the likelihood under a
weak Gaussian prior on the centred strengths: without it a player that never lost (`optimal`)
would have an infinite rating. The scale is then shifted so that `random` sits exactly at
ANCHOR_ELO (the mean sits there when no `random` player is in the store). Intervals come from a
bootstrap that redraws each pairing's games from a win/draw/loss mix drawn from that pairing's
Jeffreys posterior, so a perfect record still gets an interval of honest width.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

ANCHOR_ELO = 1000.0
ELO_PER_LOGIT = 400.0 / math.log(10.0)
PRIOR_SD_ELO = 800.0  # weak: only keeps undefeated players finite
MAX_STEP = 2.0  # logits per Newton step
SCORES = {"win": 1.0, "draw": 0.5, "loss": 0.0, "failure": 0.0}


@dataclass(frozen=True)
class Result:
    """One game from `player`'s side: score 1 (win), 0.5 (draw) or 0 (loss or failure)."""

    player: str
    opponent: str
    score: float
    count: int = 1  # this many games with the same pairing and result (reports aggregate in SQL)


@dataclass(frozen=True)
class Rating:
    player: str
    elo: float
    low: float
    high: float
    games: int
    wins: int
    draws: int
    losses: int


def is_anchor(spec: str) -> bool:
    return spec.split(":", 1)[0] == "random"


def _pairs(results: Iterable[Result], index: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per ordered pair i<j: (i, j), games, and i's W/D/L counts."""
    counts: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in results:
        i, j, s = index[r.player], index[r.opponent], r.score
        if i > j:
            i, j, s = j, i, 1.0 - s
        counts[(i, j)][0 if s == 1.0 else 1 if s == 0.5 else 2] += r.count
    pairs = sorted(counts)  # the bootstrap's draws follow this order: independent of how games were read
    ij = np.array(pairs, dtype=int).reshape(-1, 2)
    wdl = np.array([counts[p] for p in pairs], dtype=float).reshape(-1, 3)
    return ij, wdl.sum(axis=1), wdl


def _fit(pairs: np.ndarray, n: np.ndarray, s: np.ndarray, players: int) -> np.ndarray:
    """MAP strengths (logits) for pair totals `n` and first-player scores `s` (shape (B, pairs)).

    The log-likelihood is concave and the prior makes it strictly so, so damped Newton steps
    converge in a few iterations; all B bootstrap resamples are solved at once.
    """
    lam = (ELO_PER_LOGIT / PRIOR_SD_ELO) ** 2
    # Incidence matrix: +1 for the pair's first player, -1 for its second; d = theta @ A.T.
    A = np.zeros((len(pairs), players))
    A[np.arange(len(pairs)), pairs[:, 0]] = 1.0
    A[np.arange(len(pairs)), pairs[:, 1]] = -1.0
    theta = np.zeros((s.shape[0], players))
    # The ridge equals a prior on the centred strengths: the likelihood's gradient sums to zero,
    # so the optimum has mean zero either way; the ridge keeps the Hessian invertible.
    ridge = lam * np.eye(players)
    for _ in range(100):
        p = expit(theta @ A.T)
        grad = lam * theta + (n * p - s) @ A
        hess = ridge + (A.T * (n * p * (1.0 - p))[:, None, :]) @ A
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        step /= np.maximum(1.0, np.abs(step).max(axis=1, keepdims=True) / MAX_STEP)
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    return theta


def rate(
    results: Iterable[Result], *, resamples: int = 300, seed: int = 0, confidence: float = 0.95
) -> list[Rating]:
    """Ratings for every player in `results` (self-play games carry no information and are dropped)."""
    results = [r for r in results if r.player != r.opponent]
    players = sorted({r.player for r in results} | {r.opponent for r in results})
    if not players:
        return []
    index = {p: k for k, p in enumerate(players)}
    anchors = [index[p] for p in players if is_anchor(p)]

    def to_elo(theta: np.ndarray) -> np.ndarray:
        zero = theta[..., anchors[:1]] if anchors else theta.mean(axis=-1, keepdims=True)
        elo: np.ndarray = ANCHOR_ELO + ELO_PER_LOGIT * (theta - zero)
        return elo

    ij, n, wdl = _pairs(results, index)
    point = to_elo(_fit(ij, n, (wdl[:, 0] + 0.5 * wdl[:, 1])[None], len(players))[0])
    rng = np.random.default_rng(seed)
    # Per pairing: a win/draw/loss mix from its Jeffreys posterior, then that many games from it
    # (B, pairs, 3). Plain resampling would give a zero-width interval to any perfect record.
    draws = np.stack(
        [rng.multinomial(int(k), rng.dirichlet(c + 0.5, size=resamples)) for k, c in zip(n, wdl)], axis=1
    )
    boots = to_elo(_fit(ij, n, draws[..., 0] + 0.5 * draws[..., 1], len(players)))
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(boots, alpha, axis=0), np.quantile(boots, 1.0 - alpha, axis=0)

    record: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in results:
        for who, s in ((r.player, r.score), (r.opponent, 1.0 - r.score)):
            record[who][0 if s == 1.0 else 1 if s == 0.5 else 2] += r.count
    out = [
        Rating(p, float(point[k]), float(low[k]), float(high[k]), sum(record[p]), *record[p])
        for p, k in index.items()
    ]
    return sorted(out, key=lambda r: -r.elo)


POOLED = "all games"


def ratings_by_game(
    results: Iterable[tuple[str, Result]], *, pooled: bool = False
) -> dict[str, list[Rating]]:
    """One rating table per game; with `pooled`, first one table over every game on one scale.

    Per game is the default: a win at Nim says nothing about Connect Four, and a pooled ladder
    ranks a player by which games it happened to play (MCTS above Optimal when Optimal only played
    Connect Four's draws). Pooling is an explicit choice (`plylab report --html DIR --pooled-ratings`).
    """
    results = list(results)
    titles = sorted({t for t, _ in results})
    table = {POOLED: rate(r for _, r in results)} if pooled and results else {}
    table.update({t: rate(r for g, r in results if g == t) for t in titles})
    return table
