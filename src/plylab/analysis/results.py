"""Typed results past the store: an estimate with its interval, and a matchup row with its parts.

What `metrics.matchup_results` returns and every table, page and paper table reads by attribute.
Each type's `to_json()` is the JSON the reports have always written (the same keys in the same
order), so a report's JSON output does not change with the types.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Protocol

from ..jsontypes import JSONObject
from .stats import Estimate

IDENTITY = ("run", "game", "formulation", "player", "opponent")  # what names a matchup row
MatchupKey = tuple[str, str, str, str, str]  # (run, game, formulation, player, opponent)


class Interval(Protocol):
    """An estimate as a cell prints it: its value, its 95% interval and the independent units it
    rests on (None for a number a paper prints, whose units the paper does not give)."""

    @property
    def value(self) -> float | None: ...

    @property
    def low(self) -> float | None: ...

    @property
    def high(self) -> float | None: ...

    @property
    def units(self) -> int | None: ...


@dataclass(frozen=True)
class Rate:
    """A per-move rate over `scored` moves: its Wilson interval, and the interval of a bootstrap
    that resamples whole games (moves within a game are not independent)."""

    rate: float | None
    low: float | None
    high: float | None
    scored: int
    cluster_low: float | None
    cluster_high: float | None

    @property
    def value(self) -> float | None:
        return self.rate

    @property
    def units(self) -> int | None:
        return self.scored

    def to_json(self) -> JSONObject:
        return asdict(self)  # the fields, in order: the JSON the reports have always written


@dataclass(frozen=True)
class Mean:
    """A mean with its Student-t interval over `n` values (None: a published mean, n not printed)."""

    mean: float | None
    low: float | None
    high: float | None
    n: int | None

    @classmethod
    def of(cls, e: Estimate) -> Mean:
        """A Student-t estimate (stats.student_t names its mean `rate`) as a mean."""
        return cls(e.rate, e.low, e.high, e.n)

    @property
    def value(self) -> float | None:
        return self.mean

    @property
    def units(self) -> int | None:
        return self.n

    def to_json(self) -> JSONObject:
        return asdict(self)  # the fields, in order: the JSON the reports have always written


@dataclass(frozen=True)
class Recognition:
    """How often a text names the game: the Wilson estimate over the `n` texts read `on` traces or
    replies, how many model moves there were and how many had a trace, and the pattern scope."""

    rate: float | None
    low: float | None
    high: float | None
    n: int
    on: str
    moves: int
    traced: int
    scope: str

    @property
    def value(self) -> float | None:
        return self.rate

    @property
    def units(self) -> int | None:
        return self.n

    def to_json(self) -> JSONObject:
        return asdict(self)  # the fields, in order: the JSON the reports have always written


@dataclass(frozen=True)
class Usage:
    """A matchup's model usage, summed over its games (`cost`: None where no call was priced)."""

    calls: int
    cache_hits: int
    input_tokens: int
    output_tokens: int
    reasoning_tokens: int
    cost: float | None

    def to_json(self) -> JSONObject:
        return {
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cost": self.cost,
        }


@dataclass(frozen=True)
class Loss:
    """The mean expected loss per informative decision against an equilibrium (game-clustered
    interval), and that mean over the game's utility range (`relative`)."""

    mean: float | None
    low: float | None
    high: float | None
    relative: float | None
    n: int

    def to_json(self) -> JSONObject:
        return {"mean": self.mean, "low": self.low, "high": self.high, "relative": self.relative, "n": self.n}


@dataclass(frozen=True)
class EquilibriumRate:
    """The share of informative decisions whose action has equilibrium probability above `threshold`."""

    rate: float | None
    low: float | None
    high: float | None
    scored: int
    cluster_low: float | None
    cluster_high: float | None
    threshold: float

    def to_json(self) -> JSONObject:
        return {
            "rate": self.rate,
            "low": self.low,
            "high": self.high,
            "scored": self.scored,
            "cluster_low": self.cluster_low,
            "cluster_high": self.cluster_high,
            "threshold": self.threshold,
        }


@dataclass(frozen=True)
class Exploitability:
    """The exploitability of a player's empirical strategy, with a percentile bootstrap over games."""

    value: float
    low: float
    high: float
    decisions: int
    infosets_seen: int
    infosets: int
    resamples: int

    def to_json(self) -> JSONObject:
        return {
            "value": self.value,
            "low": self.low,
            "high": self.high,
            "decisions": self.decisions,
            "infosets_seen": self.infosets_seen,
            "infosets": self.infosets,
            "resamples": self.resamples,
        }


@dataclass(frozen=True)
class EquilibriumFigures:
    """What a matchup's decisions lose against the game's equilibrium (analysis/equilibrium.py)."""

    source: str
    span: float
    decisions: int
    informative: int
    loss: Loss
    equilibrium_rate: EquilibriumRate
    payoff: Mean
    exploitability: Exploitability | None  # None where the game has too many information sets
    # output=distribution: the expected loss of the stated distribution itself (sum of p(a) x loss(a)
    # per informative decision); None where no decision stated one
    stated_loss: Loss | None = None

    def to_json(self) -> JSONObject:
        return {
            "source": self.source,
            "span": self.span,
            "decisions": self.decisions,
            "informative": self.informative,
            "loss": self.loss.to_json(),
            "equilibrium_rate": self.equilibrium_rate.to_json(),
            "payoff": self.payoff.to_json(),
            "exploitability": None if self.exploitability is None else self.exploitability.to_json(),
            "stated_loss": None if self.stated_loss is None else self.stated_loss.to_json(),
        }


@dataclass(frozen=True)
class MatchupRow:
    """One (run, game, formulation, player, opponent), from the player's side: outcomes, rates,
    means, usage and recognition; the mean payoff for games of hidden information, the rate by
    exact score where the oracle scores moves, the equilibrium figures where the game has one."""

    run: str
    status: str  # finished | running | interrupted | stopped | failed
    game: str
    formulation: str
    player: str
    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    failures: int
    failure_kinds: dict[str, int]
    win_rate: Estimate
    draw_rate: Estimate
    optimality: Rate
    moves_per_game: Mean
    usage: Usage
    tokens_per_move: Mean
    recognition: Recognition
    payoff: Mean | None = None
    optimality_score: Rate | None = None
    equilibrium: EquilibriumFigures | None = None

    @property
    def key(self) -> MatchupKey:
        return (self.run, self.game, self.formulation, self.player, self.opponent)

    def column(self, name: str) -> str:
        """One of the identifying columns (IDENTITY) by name, as a pivot picks its columns."""
        return dict(zip(IDENTITY, self.key, strict=True))[name]

    @property
    def outcome_counts(self) -> dict[str, int]:
        """W D L F from the player's side, by the names the JSON gives them."""
        return {"wins": self.wins, "draws": self.draws, "losses": self.losses, "failures": self.failures}

    @property
    def uses_model(self) -> bool:
        """Whether a language model played (or answered from its cache) in this matchup."""
        return self.usage.calls + self.usage.cache_hits > 0

    def to_json(self) -> JSONObject:
        out: JSONObject = {
            "run": self.run,
            "status": self.status,
            "game": self.game,
            "formulation": self.formulation,
            "player": self.player,
            "opponent": self.opponent,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "failures": self.failures,
            "failure_kinds": {k: n for k, n in self.failure_kinds.items()},
            "win_rate": self.win_rate.to_json(),
            "draw_rate": self.draw_rate.to_json(),
            "optimality": self.optimality.to_json(),
            "moves_per_game": self.moves_per_game.to_json(),
            "usage": self.usage.to_json(),
            "tokens_per_move": self.tokens_per_move.to_json(),
            "recognition": self.recognition.to_json(),
        }
        if self.payoff is not None:
            out["payoff"] = self.payoff.to_json()
        if self.optimality_score is not None:
            out["optimality_score"] = self.optimality_score.to_json()
        if self.equilibrium is not None:
            out["equilibrium"] = self.equilibrium.to_json()
        return out
