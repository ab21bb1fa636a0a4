"""Typed rows the store reads out of its `runs`, `games` and `moves` tables (a move's row is also
what the session writes: `MoveRow`, the one shape of a move).

`Store` is the only code that writes SQL against those tables; everything else (analysis, reports,
export, budget) gets these frozen rows. A column an older store lacks keeps the field's default, so
stores written by earlier plylab versions still read. Values are the columns' own (JSON columns stay
text), so what a report prints from a row is what it printed from the SQLite row before.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar, overload

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


def reader(cls: type[R], cur: sqlite3.Cursor) -> Callable[[Sequence[Any]], R]:
    """`cls` from one row of `cur`; which columns it has is read once, not per row (columns that
    are not its fields, e.g. a move's `game_id`, are left for the caller)."""
    columns = [d[0] for d in cur.description]
    at = [(n, columns.index(n)) for n in _names(cls) if n in columns]  # by position: Row[name] scans
    return lambda r: cls(**{n: r[i] for n, i in at})


def rows_of(cls: type[R], cur: sqlite3.Cursor) -> Iterator[R]:
    """Each row of `cur` as `cls`, streamed."""
    read = reader(cls, cur)
    return (read(r) for r in cur)


@overload
def json_text(value: list[Any] | dict[Any, Any]) -> str: ...
@overload
def json_text(value: object) -> str | None: ...
def json_text(value: object) -> str | None:
    """Compact JSON for a column (dict keys become strings, as JSON requires), None stays NULL."""
    return None if value is None else json.dumps(value, separators=(",", ":"))


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
    """One move, as the session writes it and every reader reads it back: a row of the `moves` table.

    The one shape of a move (issue 50): the session builds it once, when the game ends and every
    grade and annotation is in (harness/session.py), the store writes its fields as its columns, and
    reports read them from the store as written. JSON columns hold JSON text (`json_text`), so what a
    report prints is what was stored. A column an older store lacks keeps its default here."""

    ply: int  # the move's number in the game, from 0 (chance moves are not moves)
    seat: int  # the mover's seat
    player: str = ""  # the mover's spec, canonical (players.canonical)
    state: str = ""  # OpenSpiel's serialization of the state before the move
    observation: str | None = None  # the position in the formulation the mover read (model and human players)
    legal: str = "[]"  # JSON list of the legal engine actions
    action: int | None  # the action played; None when the move failed (the game forfeited)
    action_label: str | None = None  # the action in the formulation's words
    elapsed: float = 0.0  # seconds the player took
    values_json: str | None = None  # JSON: the exact oracle's value of every legal move (mover's view)
    scores_json: str | None = None  # JSON: finer exact scores, where the oracle has them
    optimal: int | None = None  # 1/0 by the exact values; None when not scored
    informative: int | None = None  # 0 when every legal move is optimal (such moves are not counted)
    optimal_score: int | None = None  # 1/0 by the finer scores
    informative_score: int | None = None  # the same, by the finer scores
    grade: str | None = None  # JSON: the one graded scale (oracles.graded.Grade.to_json)
    loss: float | None = None  # the played move's loss on that scale
    prompt: str | None = None  # the final attempt's prompt (model players)
    reply: str | None = None  # the final attempt's reply
    reasoning: str | None = None  # the final attempt's reasoning trace
    input_tokens: int = 0  # summed over the move's attempts
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None  # summed over the attempts that report one; None: none did
    calls: int = 0  # model calls made (cache hits not counted)
    cache_hits: int = 0  # attempts answered by the response cache
    failure_kind: str | None = None  # why the move failed (`illegal`, a parse failure...), None: it did not
    attempts: str | None = (
        None  # JSON list of every attempt, failed ones included (models.call.AttemptRecord)
    )
    note: str | None = None  # JSON: the player's own trace (players.base.Decision.note)
    annotation: str | None = (
        None  # JSON: the game's own account of the move (harness.hooks.Annotator; a Clue turn)
    )


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
