"""What a chess site reports per game, from the engine's grades: centipawn loss, accuracy, mistakes.

Every definition is lichess's, the site that publishes its formulas (https://lichess.org/page/accuracy
and the lila source, modules/analyse: AccuracyPercent.scala, Advice.scala, WinPercent.scala):

- Win% = 50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1), cp capped at +-1000 (oracles/engine.py);
  the graded scale's expected score is Win% / 100.
- A move's accuracy: 103.1668100711649 * exp(-0.04354415386753951 * (Win%before - Win%after))
  - 3.166924740191411, plus lichess's 1-point "uncertainty bonus", within [0, 100]; 100 when the
  move loses nothing. A game's accuracy for one side: the mean of the volatility-weighted mean
  (each move weighted by the standard deviation of Win% over a window of positions, window = plies
  / 10 within [2, 8], weight within [0.5, 12]) and the harmonic mean of its moves' accuracies.
- Judgements by the drop in winning chances (Win% on [-1, 1]): 0.1 inaccuracy (?!), 0.2 mistake (?),
  0.3 blunder (??); in expected score, a loss of 0.05, 0.10, 0.15.
- Centipawn loss: best minus played evaluation, each capped at +-1000 (a mate as the cap), never
  below 0; the average over a side's moves is the ACPL.

Per matchup, from the player's side: ACPL and accuracy as the mean over games with a Student-t
interval (games are the independent units), judgement and best-move rates per move with Wilson
intervals (and best-move with the game-clustered bootstrap), the move number of each game's first
blunder, and the engine and limit every score came from.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from statistics import pstdev
from typing import TYPE_CHECKING

from ..jsontypes import JSONObject
from ..oracles.graded import Grade
from ..oracles.uci import FAMILY
from ..players.canonical import canonical_spec
from .results import MatchupKey, Mean
from .stats import Estimate, cluster_bootstrap, estimate_text, student_t, wilson

if TYPE_CHECKING:
    from ..harness.store import Store

# Expected-score losses at which lichess judges a move (its winning-chance drops 0.1 / 0.2 / 0.3, halved).
THRESHOLDS = (("blunder", 0.15), ("mistake", 0.10), ("inaccuracy", 0.05))
NAGS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def judgement(loss: float) -> str | None:
    """lichess's judgement of a move that lost `loss` in expected score; None for a good move."""
    for name, least in THRESHOLDS:
        if loss >= least - 1e-12:
            return name
    return None


def move_accuracy(before: float, after: float) -> float:
    """lichess's accuracy (0..100) of a move from the mover's Win% before and after it (0..100 each)."""
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) - 3.166924740191411
    return max(0.0, min(100.0, raw + 1.0))


@dataclass(frozen=True)
class GradedPly:
    """One engine-graded move: the mover's expected score before (best) and after (played)."""

    ply: int
    seat: int
    best: float
    played: float
    cp_loss: int
    is_best: bool
    source: str

    @property
    def loss(self) -> float:
        return max(0.0, self.best - self.played)

    @property
    def judgement(self) -> str | None:
        return judgement(self.loss)

    @property
    def move_number(self) -> int:
        """The chess move number (1. e4 e5: both are move 1)."""
        return self.ply // 2 + 1


def graded_ply(ply: int, seat: int, grade: Grade) -> GradedPly:
    played = int(grade.detail["played"]["action"])
    return GradedPly(
        ply=ply,
        seat=seat,
        best=grade.best,
        played=grade.expected[played],
        cp_loss=int(grade.detail.get("cp_loss", 0)),
        is_best=grade.is_best(played) or played == grade.detail.get("best", {}).get("action"),
        source=grade.source,
    )


def game_accuracy(plies: list[GradedPly], seat: int) -> float | None:
    """One side's accuracy in one game, as lichess computes it (volatility-weighted and harmonic means)."""
    if not plies:
        return None
    seat0 = [p.best if p.seat == 0 else 1 - p.best for p in plies[:1]]  # seat 0's Win%, position by position
    seat0 += [p.played if p.seat == 0 else 1 - p.played for p in plies]
    wins = [100 * w for w in seat0]
    size = max(2, min(8, len(plies) // 10))
    windows = [wins[:size]] * max(0, min(size, len(wins)) - 2) + [
        wins[i : i + size] for i in range(len(wins) - size + 1)
    ]
    weights = [max(0.5, min(12.0, pstdev(w) if len(w) > 1 else 0.5)) for w in windows]
    pairs = []
    for p, weight in zip(plies, weights, strict=False):
        if p.seat == seat:
            pairs.append((move_accuracy(100 * p.best, 100 * p.played), weight))
    if not pairs:
        return None
    weighted = sum(a * w for a, w in pairs) / sum(w for _, w in pairs)
    harmonic = len(pairs) / sum(1 / max(a, 1e-9) for a, _ in pairs)
    return (weighted + harmonic) / 2


@dataclass
class _Side:
    acpl: list[float] = field(default_factory=list)  # per game
    accuracy: list[float] = field(default_factory=list)  # per game
    es_loss: list[float] = field(default_factory=list)  # per game, mean expected-score loss
    moves: int = 0
    best: list[tuple[int, int]] = field(default_factory=list)  # (best moves, moves) per game
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(NAGS, 0))
    first_blunder: list[int] = field(default_factory=list)  # move number, in games with a blunder
    games: int = 0
    sources: set[str] = field(default_factory=set)


def _est(values: list[float], lo: float = 0.0, hi: float = math.inf) -> Mean:
    """Mean and Student-t interval, the interval kept within the measure's range."""
    e = student_t(values)
    if e.low is None or e.high is None:
        return Mean.of(e)
    return Mean(e.rate, max(lo, e.low), min(hi, e.high), e.n)


@dataclass(frozen=True)
class BestMove:
    """The best-move rate per move: Wilson's interval and the game-clustered bootstrap's."""

    estimate: Estimate
    cluster_low: float | None
    cluster_high: float | None

    def to_json(self) -> JSONObject:
        return {**self.estimate.to_json(), "cluster_low": self.cluster_low, "cluster_high": self.cluster_high}


@dataclass(frozen=True)
class Judged:
    """How many of the player's moves got one judgement (a blunder, say), and their rate per move."""

    count: int
    estimate: Estimate

    def to_json(self) -> JSONObject:
        return {"count": self.count, **self.estimate.to_json()}


@dataclass(frozen=True)
class ChessRow:
    """A matchup's chess metrics from the player's side (the module's doc says how each is made)."""

    run: str
    game: str
    formulation: str
    player: str
    opponent: str
    games: int
    moves: int
    acpl: Mean
    accuracy: Mean
    expected_score_loss: Mean
    best_move: BestMove
    judged: dict[str, Judged]  # per judgement in NAGS
    first_blunder: Mean  # the move number, over the games with a blunder
    blundered: int  # games with a blunder
    engine: list[str]

    def to_json(self) -> JSONObject:
        return {
            "run": self.run,
            "game": self.game,
            "formulation": self.formulation,
            "player": self.player,
            "opponent": self.opponent,
            "games": self.games,
            "moves": self.moves,
            "acpl": self.acpl.to_json(),
            "accuracy": self.accuracy.to_json(),
            "expected_score_loss": self.expected_score_loss.to_json(),
            "best_move": self.best_move.to_json(),
            **{name: self.judged[name].to_json() for name in NAGS},
            "first_blunder": {**self.first_blunder.to_json(), "games": self.blundered},
            "engine": list(self.engine),
        }


Key = MatchupKey  # run, game, formulation, player, opponent


def chess_rows(store: Store, run: str | None = None) -> list[ChessRow]:
    """Per (run, game, formulation, player, opponent), the player's chess metrics; [] without engine grades."""
    listed = store.runs(run)
    runs = {r.id: r.name for r in listed}
    games: dict[int, tuple[Key, int, list[GradedPly]]] = {}
    order: list[int] = []
    for m in store.engine_moves(runs, FAMILY):
        if m.game_id not in games:
            key = (
                runs[m.run_id],
                m.game,
                m.formulation,
                canonical_spec(m.player),
                canonical_spec(m.opponent),
            )
            games[m.game_id] = (key, m.player_seat, [])
            order.append(m.game_id)
        games[m.game_id][2].append(graded_ply(m.ply, m.seat, Grade.from_json(m.grade)))
    sides: dict[Key, _Side] = defaultdict(_Side)
    keys: list[Key] = []
    for gid in order:
        key, seat, plies = games[gid]
        mine = [p for p in plies if p.seat == seat]
        if not mine:
            continue
        if key not in sides:
            keys.append(key)
        s = sides[key]
        s.games += 1
        s.moves += len(mine)
        s.acpl.append(sum(p.cp_loss for p in mine) / len(mine))
        s.es_loss.append(sum(p.loss for p in mine) / len(mine))
        acc = game_accuracy(plies, seat)
        if acc is not None:
            s.accuracy.append(acc)
        s.best.append((sum(p.is_best for p in mine), len(mine)))
        for p in mine:
            s.sources.add(p.source)
            if p.judgement is not None:
                s.counts[p.judgement] += 1
        blunders = [p.move_number for p in mine if p.judgement == "blunder"]
        if blunders:
            s.first_blunder.append(blunders[0])
    rows = []
    for key in keys:
        s = sides[key]
        k, n = sum(b for b, _ in s.best), sum(m for _, m in s.best)
        c = cluster_bootstrap(s.best)
        rows.append(
            ChessRow(
                *key,
                games=s.games,
                moves=s.moves,
                acpl=_est(s.acpl),
                accuracy=_est(s.accuracy, 0.0, 100.0),
                expected_score_loss=_est(s.es_loss, 0.0, 1.0),
                best_move=BestMove(wilson(k, n), c.low, c.high),
                judged={name: Judged(s.counts[name], wilson(s.counts[name], s.moves)) for name in NAGS},
                first_blunder=_est([float(x) for x in s.first_blunder], 1.0),
                blundered=len(s.first_blunder),
                engine=sorted(s.sources),
            )
        )
    return rows


def _mean(e: Mean, digits: int = 1) -> str:
    """By the one rule (stats.estimate_text): `mean [low, high]`, or `mean (n=k)`."""
    if e.mean is None:
        return "–"
    return estimate_text(e.mean, e.low, e.high, e.n, lambda x: f"{x:.{digits}f}")


def _rate(e: Estimate) -> str:
    if e.rate is None:
        return "–"
    return estimate_text(e.rate, e.low, e.high, e.n, "{:.3f}".format)


def _count(e: Judged) -> str:
    return f"{e.count} ({_rate(e.estimate)})"


def chess_table(rows: list[ChessRow], fmt: str) -> str:
    """The chess metrics as a table (any report format), with the engine line under it."""
    from .tables import format_grid

    header = [
        "game",
        "player",
        "opponent",
        "games",
        "moves",
        "ACPL [95% t]",
        "accuracy [95% t]",
        "best move [95% Wilson]",
        "inaccuracies",
        "mistakes",
        "blunders (rate [95% Wilson])",
        "first blunder (move no.)",
        "expected-score loss",
    ]
    body = [
        [
            r.game,
            r.player,
            r.opponent,
            str(r.games),
            str(r.moves),
            _mean(r.acpl),
            _mean(r.accuracy),
            _rate(r.best_move.estimate),
            _count(r.judged["inaccuracy"]),
            _count(r.judged["mistake"]),
            _count(r.judged["blunder"]),
            (_mean(r.first_blunder) + f" in {r.blundered}/{r.games} games"),
            _mean(r.expected_score_loss, 3),
        ]
        for r in rows
    ]
    engines = sorted({e for r in rows for e in r.engine})
    notes = [
        f"engine: {', '.join(engines)} (one thread, hash cleared per position); the player's moves only",
        "lichess's definitions (https://lichess.org/page/accuracy): Win% from centipawns, accuracy per move "
        "and per game, judgements at a winning-chance drop of 0.1 / 0.2 / 0.3",
    ]
    return format_grid(header, body, fmt, title="Chess, graded by the engine", notes=notes)
