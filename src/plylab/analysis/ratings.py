"""Bradley-Terry ratings on the Elo scale, rated only where the games identify them.

Every stored game is one comparison between its two player specs (a draw is half a win each, a
failure a loss for the side that failed). Bradley-Terry has a finite maximum-likelihood estimate
only over players joined by results both ways (Zermelo's condition: the "scored against" graph,
an edge a->b when a won or drew against b, is strongly connected). So the players split into
strongly connected components; the component holding `random` (else the largest, of two or more
players) is rated, with `random` exactly at ANCHOR_ELO when it is there and the rated players' mean
there otherwise (said in `anchor_note`). Everyone else gets no number: a component whose every
game against another was won (or every one lost) is above (below) it by the games alone, and a
rank is given only to a player whose order against every other player the games decide.

Within the rated component the strengths are the maximum of the likelihood under a weak Gaussian
prior (PRIOR_SD_ELO) that only keeps bootstrap resamples finite. Intervals come from a bootstrap
that redraws each pairing's games from a win/draw/loss mix drawn from that pairing's Jeffreys
posterior (so a perfect record still gets an interval of honest width), widened where needed to
hold the estimate itself.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, shortest_path
from scipy.special import expit

if TYPE_CHECKING:
    from ..harness.store import Store

ANCHOR_ELO = 1000.0
ELO_PER_LOGIT = 400.0 / math.log(10.0)
PRIOR_SD_ELO = 800.0  # weak: only keeps resamples that lose a pairing's both-way results finite
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
    """A player's rating (None where the games do not identify it), interval, record and rank.

    `rank` is 1 + the players the games put above it, and None where some player's order against
    it is decided by no game; `note` says what the games decide about an unrated player."""

    player: str
    elo: float | None
    low: float | None
    high: float | None
    games: int
    wins: int
    draws: int
    losses: int
    rank: int | None = None
    identified: bool = True
    note: str = ""


def is_anchor(spec: str) -> bool:
    return spec.split(":", 1)[0] == "random"


def anchor_note(ratings: list[Rating]) -> str:
    """The line that says where a table's scale is pinned (and which players it leaves unrated)."""
    rated = [r for r in ratings if r.identified]
    if not rated:
        line = "no two players have results both ways, so the games identify no rating"
    elif any(is_anchor(r.player) for r in rated):
        line = f"anchored so that random is exactly {ANCHOR_ELO:.0f}"
    else:
        line = f"no random among the rated players: their mean is {ANCHOR_ELO:.0f}"
    unrated = [r.player for r in ratings if not r.identified]
    if unrated:
        line += f"; not rated (no finite estimate from these games): {', '.join(unrated)}"
    return line


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


def _components(players: int, ij: np.ndarray, wdl: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each player's strongly connected component of the "scored against" graph, and `above`:
    above[a, b] when the games alone put a over b (a path a->b and none back)."""
    scored = np.zeros((players, players), dtype=bool)
    for (i, j), (w, d, lost) in zip(ij, wdl):
        scored[i, j] |= bool(w + d)
        scored[j, i] |= bool(lost + d)
    _, comp = connected_components(csr_matrix(scored), directed=True, connection="strong")
    reach = np.isfinite(shortest_path(csr_matrix(scored), unweighted=True))
    return comp, reach & ~reach.T


def _rated_component(players: list[str], comp: np.ndarray, n_of: dict[int, float]) -> int | None:
    """The component to rate: the one of two or more players holding `random`, else the largest."""
    sizes = np.bincount(comp)
    big = [c for c in range(len(sizes)) if sizes[c] >= 2]
    if not big:
        return None
    anchored = [c for c in big if any(is_anchor(p) for p, k in zip(players, comp) if k == c)]
    if anchored:
        return anchored[0]
    return min(
        big, key=lambda c: (-sizes[c], -n_of.get(c, 0.0), min(p for p, k in zip(players, comp) if k == c))
    )


def _record(results: list[Result]) -> dict[str, list[int]]:
    record: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in results:
        for who, s in ((r.player, r.score), (r.opponent, 1.0 - r.score)):
            record[who][0 if s == 1.0 else 1 if s == 0.5 else 2] += r.count
    return record


def _elo(
    results: list[Result], rated: list[str], resamples: int, seed: int, confidence: float
) -> dict[str, tuple[float, float, float]]:
    """(estimate, low, high) for the players of one identified component, from their games."""
    index = {p: k for k, p in enumerate(rated)}
    anchors = [index[p] for p in rated if is_anchor(p)]

    def to_elo(theta: np.ndarray) -> np.ndarray:
        zero = theta[..., anchors[:1]] if anchors else theta.mean(axis=-1, keepdims=True)
        elo: np.ndarray = ANCHOR_ELO + ELO_PER_LOGIT * (theta - zero)
        return elo

    ij, n, wdl = _pairs((r for r in results if r.player in index and r.opponent in index), index)
    point = to_elo(_fit(ij, n, (wdl[:, 0] + 0.5 * wdl[:, 1])[None], len(rated))[0])
    rng = np.random.default_rng(seed)
    # Per pairing: a win/draw/loss mix from its Jeffreys posterior, then that many games from it
    # (B, pairs, 3). Plain resampling would give a zero-width interval to any perfect record.
    draws = np.stack(
        [rng.multinomial(int(k), rng.dirichlet(c + 0.5, size=resamples)) for k, c in zip(n, wdl)], axis=1
    )
    boots = to_elo(_fit(ij, n, draws[..., 0] + 0.5 * draws[..., 1], len(rated)))
    alpha = (1.0 - confidence) / 2.0
    # The Jeffreys mix pulls a lopsided record's resamples in, so the percentile interval can end
    # short of the estimate: it is widened to hold it (an interval must contain what it brackets).
    low = np.minimum(np.quantile(boots, alpha, axis=0), point)
    high = np.maximum(np.quantile(boots, 1.0 - alpha, axis=0), point)
    return {p: (float(point[k]), float(low[k]), float(high[k])) for p, k in index.items()}


def _names(players: list[str], mask: np.ndarray) -> str:
    return ", ".join(p for p, m in zip(players, mask) if m)


def rate(
    results: Iterable[Result], *, resamples: int = 300, seed: int = 0, confidence: float = 0.95
) -> list[Rating]:
    """Ratings for every player in `results`, highest first; players the games do not identify
    come with no rating and, unless every order about them is decided, no rank (self-play games
    carry no information and are dropped)."""
    results = [r for r in results if r.player != r.opponent]
    players = sorted({r.player for r in results} | {r.opponent for r in results})
    if not players:
        return []
    index = {p: k for k, p in enumerate(players)}
    ij, n, wdl = _pairs(results, index)
    comp, above = _components(len(players), ij, wdl)
    games_in: dict[int, float] = defaultdict(float)
    for (i, j), k in zip(ij, n):
        if comp[i] == comp[j]:
            games_in[int(comp[i])] += float(k)
    chosen = _rated_component(players, comp, games_in)
    rated = [p for p in players if chosen is not None and comp[index[p]] == chosen]
    est = _elo(results, rated, resamples, seed, confidence) if rated else {}

    def over(a: str, b: str) -> bool | None:
        """Whether the games put a above b (None: no game decides their order)."""
        i, j = index[a], index[b]
        if above[i, j] or above[j, i]:
            return bool(above[i, j])
        if a in est and b in est and est[a][0] != est[b][0]:
            return est[a][0] > est[b][0]
        return None

    record = _record(results)
    out = []
    for p, i in index.items():
        order = [over(q, p) for q in players if q != p]
        rank = None if None in order else 1 + sum(bool(o) for o in order)
        note = ""
        if p not in est:
            said = [
                f"{word} {_names(players, mask)}"
                for word, mask in (("below", above[:, i]), ("above", above[i, :]))
                if mask.any()
            ]
            note = "; ".join(said) if said else "no game decides its order"
        elo, low, high = est.get(p, (None, None, None))
        w, d, lost = record[p]
        out.append(Rating(p, elo, low, high, w + d + lost, w, d, lost, rank, p in est, note))
    return sorted(out, key=lambda r: (int(above[:, index[r.player]].sum()), -(r.elo or -math.inf), r.player))


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


def rating_results(store: Store, run_ids: Iterable[int]) -> list[tuple[str, Result]]:
    """(game title, result with its count) per pairing and outcome, counted by SQLite."""
    # older stores may spell one player several ways: the store names them once (players.canonical)
    return [
        (c.game, Result(c.player, c.opponent, SCORES[c.outcome], c.n))
        for c in store.frame(run_ids).outcome_counts()
    ]
