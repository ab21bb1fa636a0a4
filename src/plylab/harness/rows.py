"""Typed rows the store reads out of its `runs`, `games` and `moves` tables.

`Store` is the only code that writes SQL against those tables; everything else (analysis, reports,
export, budget) gets these frozen rows. A column an older store lacks keeps the field's default, so
stores written by earlier plylab versions still read. Values are the columns' own (JSON columns stay
text), so what a report prints from a row is what it printed from the SQLite row before.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any, TypeVar

R = TypeVar("R")

USAGE = ("calls", "cache_hits", "input_tokens", "output_tokens", "reasoning_tokens")  # summed per game


_NAMES: dict[type[Any], tuple[str, ...]] = {}


def _names(cls: type[Any]) -> tuple[str, ...]:
    if cls not in _NAMES:
        _NAMES[cls] = tuple(f.name for f in fields(cls))
    return _NAMES[cls]


def from_row(cls: type[R], row: sqlite3.Row) -> R:
    """`cls` from a row holding (at least) its required fields; absent columns keep their defaults."""
    have = set(row.keys())
    return cls(**{n: row[n] for n in _names(cls) if n in have})


def rows_of(cls: type[R], cur: sqlite3.Cursor) -> Iterator[R]:
    """Each row of `cur` as `cls`, streamed; which columns it has is read once, not per row."""
    columns = [d[0] for d in cur.description]
    at = [(n, columns.index(n)) for n in _names(cls) if n in columns]  # by position: Row[name] scans
    return (cls(**{n: r[i] for n, i in at}) for r in cur)


@dataclass(frozen=True, slots=True, kw_only=True)
class Lease:
    """Who plays a run (`run_leases`): the process, its host, its last heartbeat, its start time."""

    pid: int
    host: str
    since: float
    born: str | None = None  # the process's start (/proc), so a reused pid is not taken for it


@dataclass(frozen=True, slots=True, kw_only=True)
class RunRow:
    """One run: its name, kind (play, learn, clue), seed, plan (JSON text) and status."""

    id: int
    name: str
    kind: str = "play"
    seed: int
    plan: str
    status: str
    stop_reason: str | None = None
    created: float = 0.0
    updated: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class GameRow:
    """One stored game, from its player's side (`returns` and `extra` are JSON text)."""

    id: int
    run_id: int
    job_key: str
    idx: int = 0
    game: str
    formulation: str = "standard"
    player: str
    opponent: str
    player_seat: int = 0
    seed: int = 0
    returns: str = "[0, 0]"
    outcome: str
    forfeit_by: int | None = None
    failure_kind: str | None = None
    num_moves: int = 0
    started: float = 0.0
    finished: float = 0.0
    extra: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MoveRow:
    """One stored move (`legal`, `values_json`, `scores_json`, `attempts`, `note` are JSON text)."""

    game_id: int
    ply: int
    seat: int
    player: str = ""
    state: str = ""
    observation: str | None = None
    legal: str = "[]"
    action: int | None
    action_label: str | None = None
    elapsed: float = 0.0
    values_json: str | None = None
    scores_json: str | None = None
    optimal: int | None = None
    informative: int | None = None
    optimal_score: int | None = None
    informative_score: int | None = None
    grade: str | None = None  # oracles.graded.Grade as JSON text
    loss: float | None = None
    prompt: str | None = None
    reply: str | None = None
    reasoning: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None
    calls: int = 0
    cache_hits: int = 0
    failure_kind: str | None = None
    attempts: str | None = None
    note: str | None = None
    annotation: str | None = None  # the game's own account of the move (JSON text; Clue's turn)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameTotals:
    """One game's identity and outcome with its player's moves summed (SQLite's TOTAL is a float)."""

    id: int
    run_id: int
    job_key: str
    idx: int
    game: str
    formulation: str
    player: str
    opponent: str
    player_seat: int
    outcome: str
    failure_kind: str | None
    num_moves: int
    player_moves: int
    scored: float
    optimal: float
    scored_s: float
    optimal_s: float
    calls: float
    cache_hits: float
    input_tokens: float
    output_tokens: float
    reasoning_tokens: float
    cost: float | None
    played_tokens: float
    model_moves: float
    model_tokens: float
    model_tokens_sq: float
    payoff: float | None = None  # the player's return in the game (chips in poker)
    graded: float = 0.0  # the player's moves with a grade (oracles.graded)
    nonoptimal: float = 0.0  # of them, those whose loss is above the grade's tolerance
    loss_sum: float = 0.0  # their losses summed (the game's scale: expected score or payoff)


@dataclass(frozen=True, slots=True, kw_only=True)
class ListedGame(GameTotals):
    """A game's totals numbered (`nth`, from 1) within its matchup and seat by index."""

    nth: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelText:
    """A model move's reply and trace, with the matchup it belongs to (for recognition)."""

    run_id: int
    game: str
    formulation: str
    player: str
    opponent: str
    reply: str | None
    reasoning: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchupCount:
    """Games and moves per (run, game, formulation, player, opponent)."""

    run_id: int
    game: str
    formulation: str
    player: str
    opponent: str
    games: int
    moves: int


@dataclass(frozen=True, slots=True, kw_only=True)
class OutcomeCount:
    """How many games of a pairing ended in one outcome (from the player's side)."""

    game: str
    player: str
    opponent: str
    outcome: str
    n: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchupSpan:
    """A run's stored (game, formulation, player, opponent): when its first game started and last ended."""

    game: str
    formulation: str
    player: str
    opponent: str
    started: float
    finished: float


@dataclass(frozen=True, slots=True, kw_only=True)
class PlyOptimality:
    """A matchup player's scored moves at one move number `k` (from 0): how many, how many optimal."""

    k: int
    n: int
    ok: float


@dataclass(frozen=True, slots=True, kw_only=True)
class WorstState:
    """A state where the matchup's player chose a non-optimal move, with its legal moves' values (JSON)."""

    state: str
    seen: int
    wrong: float
    values_json: str | None
    scores_json: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class WrongMove:
    """The non-optimal move played most often in a state, and how often."""

    action: int
    action_label: str | None
    n: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlyLoss:
    """A matchup player's graded moves at one move number `k` (from 0): how many, their summed loss
    on the graded scale (`unit`: score or payoff), how many lost more than the grade's tolerance."""

    k: int
    n: int
    loss: float
    bad: float
    unit: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class CostlyDecision:
    """A decision (an information set where the grade names one, else a state) where the matchup's
    player made a non-optimal move: a state of it, how often it was met, how often and how much lost."""

    decision: str
    state: str
    seen: int
    wrong: float
    lost: float


@dataclass(frozen=True, slots=True, kw_only=True)
class CostlyMove:
    """The non-optimal move that lost the most at a decision: how often, how much in all, one grade."""

    action: int
    action_label: str | None
    n: int
    lost: float
    grade: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CalledMove:
    """A saved move that called a model: its calls and its attempts (JSON text), for the budget."""

    calls: int
    attempts: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelUsage:
    """A model's stored moves with calls: output tokens and calls summed, cost summed over `costed`."""

    output_tokens: int
    calls: int
    cost: float | None
    costed: int
    moves: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Matchup:
    """One matchup as stored: its run, game, formulation, and every spelling of its two specs."""

    run_id: int
    game: str
    formulation: str
    players: tuple[str, ...]
    opponents: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ExportRows:
    """A table's rows as `plylab export` writes them: its column names, then the rows in batches
    (values as stored, attempts with their texts put back)."""

    names: list[str]
    batches: Iterator[list[tuple[object, ...]]]


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineMove:
    """A move graded by an engine (its grade names the engine's evaluations), with its game's identity."""

    game_id: int
    run_id: int
    job_key: str
    idx: int
    game: str
    formulation: str
    player: str
    opponent: str
    player_seat: int
    seat: int
    ply: int
    grade: str
