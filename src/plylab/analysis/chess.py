"""What a chess site reports per game, from the engine's grades: centipawn loss, accuracy, mistakes.

Every figure is lichess's, computed as its published code computes it (read from lila and
scalachess; each constant below names the file it comes from). lichess analyses a game as a list of
`Info`s, one per ply: the evaluation of the position after the move, from White's side, and the
engine's best line where the move played was not the engine's best. plylab builds the same list
from its grades (oracles/engine.py keeps the evaluation of the position before and after every
move) and applies lichess's rules to it:

- Win% = 50 + 50 * winning chances, winning chances = 2 / (1 + exp(-0.00368208 * cp)) - 1 within
  [-1, 1], cp capped at +-1000 for Win% (scalachess core/src/main/scala/eval.scala, WinPercent).
- The game starts at +0.15 (lila modules/tree/src/main/eval.scala `evals.initial`, Eval.Cp.initial),
  not at a search of the start position.
- A finished game: the position after a checkmate is not an Info (lila
  modules/fishnet/src/main/AnalysisBuilder.scala `makeInfos` drops a checkmate's evaluation), so the
  mating move is in no figure; a drawn finish is +0.00 (what Stockfish says of a stalemate).
- ACPL (lila modules/analyse/src/main/AccuracyCP.scala): per move of one side, the rise of the
  other side's evaluation, each capped at +-1000 (a mate as the cap, `forceAsCp`), never below 0;
  per game the mean, rounded to a whole centipawn (`Math.round`).
- Accuracy (lila modules/analyse/src/main/AccuracyPercent.scala): per move
  103.1668100711649 * exp(-0.04354415386753951 * (Win% before - Win% after)) - 3.166924740191411
  + 1 (its "uncertainty bonus"), within [0, 100], 100 when Win% did not fall; per game and side the
  mean of the volatility-weighted mean (each move weighted by the population standard deviation of
  Win% over a window of positions, window = plies / 10 within [2, 8], weight within [0.5, 12]) and
  the harmonic mean, each accuracy floored at 1 there (scalalib lila/src/main/scala/Maths.scala).
- Judgements (lila modules/tree/src/main/Advice.scala; Analysis.scala judges only a move with a
  variation, i.e. not the engine's best): between two centipawn evaluations, a drop in the mover's
  winning chances (cp not capped) of 0.3 is a blunder, 0.2 a mistake, 0.1 an inaccuracy; a move
  into a forced mate from a centipawn evaluation is an inaccuracy below -9.99, a mistake below -7.00,
  else a blunder; losing one's own forced mate is an inaccuracy where +9.99 or more is left, a
  mistake above +7.00, else (or into being mated) a blunder.
- Best move: the move played is the engine's best move in the position before it.

Per matchup, from the player's side: ACPL and accuracy as the mean over games with a Student-t
interval (games are the independent units), judgement and best-move rates per move with Wilson
intervals (and best-move with the game-clustered bootstrap), the move number of each game's first
blunder, how many of the player's moves came when it was already lost past the cap (where Win% can
fall no further, so lichess's accuracy and ACPL count any move as perfect), and the engine and limit
every score came from.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import pstdev
from typing import TYPE_CHECKING

from ..jsontypes import JSONObject
from ..oracles.graded import Grade
from ..oracles.uci import FAMILY
from ..players.canonical import canonical_spec
from ..render.table import Table
from .results import MatchupKey, Mean
from .stats import Estimate, cluster_bootstrap, estimate_text, student_t, wilson

if TYPE_CHECKING:
    from ..harness.store import Store

NAGS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
CEILING = 1000  # scalachess core/src/main/scala/eval.scala: Eval.Cp.CEILING
INITIAL_CP = 15  # lila modules/tree/src/main/eval.scala: evals.initial (Eval.Cp.initial), White's side
MULTIPLIER = -0.00368208  # scalachess core/src/main/scala/eval.scala: WinPercent.winningChances
# lila modules/tree/src/main/Advice.scala, CpAdvice.winningChanceJudgements: a drop in winning chances.
WINNING_CHANCE_JUDGEMENTS = ((0.3, "blunder"), (0.2, "mistake"), (0.1, "inaccuracy"))


def winning_chances(cp: float) -> float:
    """scalachess's winning chances in [-1, 1] of a centipawn evaluation (not capped here: lichess's
    judgements take the raw evaluation; Win% caps it first)."""
    x = MULTIPLIER * cp
    if x > 700:  # exp would overflow: the chances are -1 already
        return -1.0
    return max(-1.0, min(1.0, 2 / (1 + math.exp(x)) - 1))


def win_percent(cp: float) -> float:
    """scalachess's WinPercent.fromCentiPawns: 50 + 50 * winning chances of the capped evaluation."""
    return 50 + 50 * winning_chances(max(-CEILING, min(CEILING, cp)))


def move_accuracy(before: float, after: float) -> float:
    """lichess's accuracy (0..100) of a move from the mover's Win% before and after it (0..100 each)
    (lila modules/analyse/src/main/AccuracyPercent.scala, fromWinPercents)."""
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) - 3.166924740191411
    return max(0.0, min(100.0, raw + 1.0))  # + 1: lichess's "uncertainty bonus"


@dataclass(frozen=True)
class Info:
    """lichess's Info (lila modules/tree/src/main/Info.scala): the evaluation after one ply from
    White's side (centipawns or mate in N, N > 0 when White mates; neither where nothing is known),
    and whether the move had a variation, i.e. was not the engine's best (only those are judged)."""

    ply: int  # plylab's ply, from 0
    white: bool  # White made the move
    cp: int | None
    mate: int | None
    variation: bool = False

    def force_as_cp(self) -> int | None:
        """lila's Eval.forceAsCp, capped: a mate as the cap on its side (lichess caps it next)."""
        if self.cp is not None:
            return max(-CEILING, min(CEILING, self.cp))
        if self.mate is not None:
            return -CEILING if self.mate < 0 else CEILING
        return None

    def pov(self, white: bool) -> tuple[int | None, int | None]:
        """(cp, mate) from one side's view."""
        sign = 1 if white else -1
        return (
            None if self.cp is None else sign * self.cp,
            None if self.mate is None else sign * self.mate,
        )


START = Info(-1, False, INITIAL_CP, None)  # lila's Info.start: the position before the first move


def advice(prev: Info, info: Info) -> str | None:
    """lichess's judgement of the move that led from `prev` to `info` (lila
    modules/tree/src/main/Advice.scala: CpAdvice, else MateAdvice), None for an unjudged move."""
    if not info.variation:  # lila modules/tree/src/main/Analysis.scala: info.hasVariation
        return None
    if prev.cp is not None and info.cp is not None:  # CpAdvice: both in centipawns
        d = winning_chances(info.cp) - winning_chances(prev.cp)
        delta = -d if info.white else d  # the mover's drop
        return next((name for least, name in WINNING_CHANCE_JUDGEMENTS if least <= delta), None)
    (pcp, pmate), (ncp, nmate) = prev.pov(info.white), info.pov(info.white)
    if (pcp is None and pmate is None) or (ncp is None and nmate is None):
        return None  # MateAdvice needs both scores
    if pmate is None and nmate is not None and nmate < 0:  # MateCreated, judged by the eval before
        before = pcp or 0
        return "inaccuracy" if before < -999 else "mistake" if before < -700 else "blunder"
    if pmate is not None and pmate > 0 and (nmate is None or nmate < 0):  # MateLost
        after = ncp or 0  # lost into being mated: 0, a blunder
        return "inaccuracy" if after > 999 else "mistake" if after > 700 else "blunder"
    return None


def acpl(infos: Sequence[Info], white: bool) -> int | None:
    """One side's average centipawn loss in one game (lila modules/analyse/src/main/AccuracyCP.scala):
    evaluations paired before/after each of its moves, capped, rounded half up to a whole number."""
    seq = [START, *infos] if white else list(infos)
    diffs = []
    for before, after in zip(seq[0::2], seq[1::2], strict=False):
        b, a = before.force_as_cp(), after.force_as_cp()
        if b is not None and a is not None:
            diffs.append(max(0, (a - b) * (-1 if white else 1)))
    return math.floor(sum(diffs) / len(diffs) + 0.5) if diffs else None  # Java's Math.round


def game_accuracy(infos: Sequence[Info], white: bool) -> float | None:
    """One side's accuracy in one game (lila modules/analyse/src/main/AccuracyPercent.scala,
    gameAccuracy): the mean of the volatility-weighted and the harmonic mean of its moves'."""
    cps = [c for i in infos if (c := i.force_as_cp()) is not None]  # lichess drops empty Infos
    wins = [win_percent(c) for c in [INITIAL_CP, *cps]]
    size = max(2, min(8, len(cps) // 10))
    windows = [wins[:size]] * max(0, min(size, len(wins)) - 2)
    windows += [wins[i : i + size] for i in range(len(wins) - size + 1)] or [wins]  # Scala's sliding
    weights = [max(0.5, min(12.0, pstdev(w))) for w in windows]
    pairs = []
    for i, weight in zip(range(len(wins) - 1), weights, strict=False):
        if (i % 2 == 0) == white:  # the game starts with White
            before, after = (wins[i], wins[i + 1]) if white else (wins[i + 1], wins[i])
            pairs.append((move_accuracy(before, after), weight))
    total = sum(w for _, w in pairs)
    if not pairs or total == 0:
        return None
    weighted = sum(a * w for a, w in pairs) / total
    harmonic = len(pairs) / sum(1 / max(1.0, a) for a, _ in pairs)  # scalalib Maths.harmonicMean
    return (weighted + harmonic) / 2


@dataclass(frozen=True)
class GradedPly:
    """One engine-graded move: the mover's expected score before (best) and after (played), the
    evaluations both come from (mover's view), and whether the engine's best move was played."""

    ply: int
    seat: int
    best: float
    played: float
    cp_loss: int
    is_best: bool
    source: str
    white: bool = True
    before: JSONObject = field(default_factory=dict)  # {"cp", "mate"} or {"result"}
    after: JSONObject = field(default_factory=dict)

    @property
    def loss(self) -> float:
        """The expected-score loss on the graded scale (capped evaluations)."""
        return max(0.0, self.best - self.played)

    @property
    def move_number(self) -> int:
        """The chess move number (1. e4 e5: both are move 1)."""
        return self.ply // 2 + 1

    @property
    def lost_past_cap(self) -> bool:
        """The mover was already lost past lichess's cap (-10.00 or being mated) before the move: Win%
        can fall no further, so lichess's accuracy and ACPL count any move here as perfect."""
        ev = self.before
        if "result" in ev:
            return False
        cp, mate = ev.get("cp"), ev.get("mate")
        if isinstance(mate, int):
            return mate < 0
        return isinstance(cp, int) and cp <= -CEILING

    def info(self) -> Info | None:
        """lichess's Info after this move; None after a checkmate (lichess keeps none there)."""
        return _info(self.ply, self.white, self.after, self.white, variation=not self.is_best)

    @property
    def judgement(self) -> str | None:
        """lichess's judgement of this move alone: from its own evaluation before (the start's +0.15
        for the first move), as lichess judges it where the previous ply was graded too."""
        prev = START if self.ply == 0 else _info(self.ply - 1, not self.white, self.before, self.white)
        info = self.info()
        return None if prev is None or info is None else advice(prev, info)


def _info(ply: int, white: bool, ev: JSONObject, view_white: bool, variation: bool = False) -> Info | None:
    """An evaluation kept in a grade (from White's view if `view_white`, else Black's) as the Info
    after `ply`, whose mover is White if `white`."""
    sign = 1 if view_white else -1
    if "result" in ev:
        if ev["result"] != 0.5:
            return None  # checkmate (a decisive finish): lichess keeps no Info
        return Info(ply, white, 0, None, variation)
    cp, mate = ev.get("cp"), ev.get("mate")
    return Info(
        ply,
        white,
        sign * cp if isinstance(cp, int) else None,
        sign * mate if isinstance(mate, int) else None,
        variation,
    )


def graded_ply(ply: int, seat: int, grade: Grade) -> GradedPly:
    played = int(grade.detail["played"]["action"])
    best = grade.detail.get("best", {}).get("action")
    return GradedPly(
        ply=ply,
        seat=seat,
        best=grade.best,
        played=grade.expected[played],
        cp_loss=int(grade.detail.get("cp_loss", 0)),
        is_best=played == best,  # the engine's best move, nothing else
        source=grade.source,
        white=grade.detail.get("mover", "white") == "white",
        before=dict(grade.detail.get("eval") or {}),
        after=dict(grade.detail.get("played_eval") or {}),
    )


def game_infos(plies: Sequence[GradedPly]) -> list[Info]:
    """A game's Infos as lichess would have them, ply by ply from the first: each graded move's
    evaluation after it; an ungraded move's from the next move's evaluation before (no variation, so
    not judged); nothing after a checkmate."""
    by_ply = {p.ply: p for p in plies}
    last = max(by_ply, default=-1)
    out: list[Info] = []
    for ply in range(last + 1):
        p, nxt = by_ply.get(ply), by_ply.get(ply + 1)
        white = p.white if p is not None else (not nxt.white if nxt is not None else ply % 2 == 0)
        if p is not None:
            info = p.info()
            if info is None:
                break  # the mating move: the game's last
        else:  # not graded: the next move's evaluation before it, else nothing known (an empty Info)
            found = _info(ply, white, nxt.before, nxt.white) if nxt is not None else None
            info = found if found is not None else Info(ply, white, None, None)
        out.append(info)
    return out


@dataclass(frozen=True)
class LichessGame:
    """One game as lichess would report it: each side's ACPL and accuracy, and each move's judgement."""

    infos: list[Info]
    judgements: dict[int, str]  # ply -> inaccuracy / mistake / blunder

    @classmethod
    def of(cls, plies: Sequence[GradedPly]) -> LichessGame:
        infos = game_infos(plies)
        judged = {}
        for prev, info in zip([START, *infos], infos, strict=False):
            verdict = advice(prev, info)
            if verdict is not None:
                judged[info.ply] = verdict
        return cls(infos, judged)

    def acpl(self, white: bool) -> int | None:
        return acpl(self.infos, white)

    def accuracy(self, white: bool) -> float | None:
        return game_accuracy(self.infos, white)


@dataclass
class _Side:
    acpl: list[float] = field(default_factory=list)  # per game
    accuracy: list[float] = field(default_factory=list)  # per game
    es_loss: list[float] = field(default_factory=list)  # per game, mean expected-score loss
    moves: int = 0
    lost: int = 0  # moves made already lost past the cap
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
    lost_past_cap: int = 0  # the player's moves made when already lost past the cap

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
            "lost_past_cap": self.lost_past_cap,
            "engine": list(self.engine),
        }


Key = MatchupKey  # run, game, formulation, player, opponent


@dataclass(frozen=True)
class GameFigures:
    """One stored game's lichess figures for both sides (the seat that is White, per OpenSpiel)."""

    game_id: int
    key: Key
    player_seat: int
    white_seat: int
    plies: list[GradedPly]
    lichess: LichessGame

    def side(self, seat: int) -> bool:
        """True when `seat` is White."""
        return seat == self.white_seat

    def acpl(self, seat: int) -> int | None:
        return self.lichess.acpl(self.side(seat))

    def accuracy(self, seat: int) -> float | None:
        return self.lichess.accuracy(self.side(seat))

    def judged(self, seat: int) -> dict[str, int]:
        counts = dict.fromkeys(NAGS, 0)
        for p in self.plies:
            verdict = self.lichess.judgements.get(p.ply)
            if p.seat == seat and verdict is not None:
                counts[verdict] += 1
        return counts


def game_figures(store: Store, run: str | None = None) -> list[GameFigures]:
    """Every engine-graded game of the store (or of `run`), in stored order, with lichess's figures."""
    runs = {r.id: r.name for r in store.runs(run)}
    games: dict[int, tuple[Key, int, list[GradedPly]]] = {}
    for m in store.frame(runs).engine_moves(FAMILY):
        if m.game_id not in games:
            key = (
                runs[m.run_id],
                m.game,
                m.formulation,
                canonical_spec(m.player),
                canonical_spec(m.opponent),
            )
            games[m.game_id] = (key, m.player_seat, [])
        games[m.game_id][2].append(graded_ply(m.ply, m.seat, Grade.from_json(m.grade)))
    out = []
    for gid, (key, seat, plies) in games.items():
        white_seat = next((p.seat if p.white else 1 - p.seat for p in plies), 0)
        out.append(GameFigures(gid, key, seat, white_seat, plies, LichessGame.of(plies)))
    return out


def chess_rows(store: Store, run: str | None = None) -> list[ChessRow]:
    """Per (run, game, formulation, player, opponent), the player's chess metrics; [] without engine grades."""
    sides: dict[Key, _Side] = defaultdict(_Side)
    keys: list[Key] = []
    for g in game_figures(store, run):
        key, seat, plies = g.key, g.player_seat, g.plies
        mine = [p for p in plies if p.seat == seat]
        if not mine:
            continue
        if key not in sides:
            keys.append(key)
        s = sides[key]
        s.games += 1
        s.moves += len(mine)
        s.lost += sum(p.lost_past_cap for p in mine)
        acpl_ = g.acpl(seat)
        if acpl_ is not None:
            s.acpl.append(float(acpl_))
        s.es_loss.append(sum(p.loss for p in mine) / len(mine))
        acc = g.accuracy(seat)
        if acc is not None:
            s.accuracy.append(acc)
        s.best.append((sum(p.is_best for p in mine), len(mine)))
        for p in mine:
            s.sources.add(p.source)
        for name, n in g.judged(seat).items():
            s.counts[name] += n
        blunders = [p.move_number for p in mine if g.lichess.judgements.get(p.ply) == "blunder"]
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
                lost_past_cap=s.lost,
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


def chess_table(rows: list[ChessRow]) -> Table:
    """The chess metrics as a table (every report format), a run and a formulation column on every
    row, with the engine line and lichess's definitions under it."""
    from ..players.canonical import printed_run_name

    header = [
        "run",
        "game",
        "formulation",
        "player",
        "opponent",
        "games",
        "moves",
        "ACPL [95% t]",
        "accuracy [95% t]",
        "engine's best move [95% Wilson]",
        "inaccuracies",
        "mistakes",
        "blunders (rate [95% Wilson])",
        "first blunder (move no.)",
        "moves when lost past the cap",
        "expected-score loss",
    ]
    body = [
        [
            printed_run_name(r.run),
            r.game,
            r.formulation,
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
            f"{r.lost_past_cap}/{r.moves}",
            _mean(r.expected_score_loss, 3),
        ]
        for r in rows
    ]
    engines = sorted({e for r in rows for e in r.engine})
    notes = [
        f"engine: {', '.join(engines) or '–'} (one thread, hash cleared per position); the player's moves only",
        "lichess's definitions (lila's AccuracyCP, AccuracyPercent, Advice; scalachess's WinPercent): ACPL "
        "rounded per game, accuracy per game from +0.15, judgements by winning chances and mate rules; a "
        "move when lost past the cap (-10.00 or mated) cannot lower lichess's accuracy or raise its ACPL",
    ]
    data = {"chess": [r.to_json() for r in rows]}
    if not rows:
        notes = [
            f"no engine-graded games here: {', '.join(FAMILY)} are graded when their engine is installed"
        ]
    return Table(header, body, notes=notes, title="Chess, graded by the engine", data=data)
