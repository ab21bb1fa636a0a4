"""Spending limits for a run: model calls, tokens and dollars.

Only NEW model calls count: a reply read back from the response cache costs nothing, so a resumed
run is not charged twice for the games it replays. Usage is charged per saved game (the store is
the ledger), and a resumed run starts from what its saved games already used.

The check is made before each game starts: a game is started only if the usage so far, plus what
the games in flight and this one are expected to use (the mean of the games saved so far), stays
within every limit. Games already in flight always finish, so a run may end slightly above a limit
(by at most the games in flight; lower --concurrency for a tighter stop).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..errors import UserError
from ..words import count
from .records import GameRecord

if TYPE_CHECKING:
    from .store import Store


@dataclass(frozen=True)
class Usage:
    """What new model calls used: calls, tokens (input + output, reasoning included) and dollars."""

    calls: int = 0
    tokens: int = 0
    cost: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.calls + other.calls, self.tokens + other.tokens, self.cost + other.cost)


def _number(value: object) -> int | float | str:
    """A stored attempt's count or cost as `int()` and `float()` read it (a missing one is 0)."""
    value = value or 0
    if not isinstance(value, int | float | str):
        raise TypeError(f"an attempt's usage is not a number: {value!r}")
    return value


def move_usage(calls: int, attempts: str | None) -> Usage:
    """Usage of one move from its attempts (JSON text, as a move holds them), leaving out replies
    served by the response cache."""
    read: list[Mapping[str, object]] = json.loads(attempts) if attempts else []
    fresh = [a for a in read if not a.get("cached") and a.get("prompt") is not None]
    tokens = sum(int(_number(a.get("input_tokens"))) + int(_number(a.get("output_tokens"))) for a in fresh)
    cost = sum(float(_number(a.get("cost"))) for a in fresh)
    return Usage(calls, tokens, cost)


def game_usage(rec: GameRecord) -> Usage:
    total = Usage()
    for m in rec.moves:
        if m.calls:
            total += move_usage(m.calls, m.attempts)
    return total


def stored_usage(store: Store, run_id: int) -> tuple[Usage, int]:
    """(usage, games) already saved for a run: what a resumed run has spent before."""
    total = Usage()
    for m in store.called_moves(run_id):
        total += move_usage(m.calls, m.attempts)
    return total, store.game_count(run_id)


class RunBudget(Protocol):
    """What the run driver asks of a limit: may a game start, what a saved game cost, why it stopped."""

    def resume(self, store: Store, run_id: int) -> object:
        """Count what the run's saved games already used."""

    def allows_new_game(self) -> bool: ...

    def charge(self, rec: object) -> None:
        """A newly saved game (never one that was already stored): a `GameRecord` where the
        budget counts model usage."""

    def charge_unfinished(self) -> None:
        """A game that started and was left unfinished (a provider failure): not saved."""

    @property
    def reason(self) -> str | None: ...


@dataclass
class GameLimit:
    """At most `limit` NEW games in this invocation (games replayed or already stored are free)."""

    limit: int
    played: int = 0

    def resume(self, store: Store, run_id: int) -> GameLimit:
        return self

    def allows_new_game(self) -> bool:
        return self.played < self.limit

    def charge(self, rec: object) -> None:
        self.played += 1

    def charge_unfinished(self) -> None:
        self.played += 1  # it was started: a limit of N new games starts at most N

    @property
    def reason(self) -> str | None:
        return None if self.played < self.limit else f"limit of {self.limit} new games"


@dataclass
class Budget:
    """Limits on one run's model usage (a `RunBudget`)."""

    max_calls: int | None = None
    max_tokens: int | None = None
    max_cost: float | None = None
    spent: Usage = Usage()
    games: int = 0  # games charged (saved), prior ones included
    in_flight: int = 0  # games started and not yet charged
    tripped: str | None = None  # the flag of the limit that stopped new games

    def __post_init__(self) -> None:
        for flag, limit, _ in self._limits():
            if limit is not None and not limit >= 0:  # NaN too: it compares false with every number
                raise UserError(f"{flag} must be zero or more (got {limit})")

    def _limits(self) -> tuple[tuple[str, float | None, float], ...]:
        """(flag, limit, used so far) per limit."""
        return (
            ("--max-calls", self.max_calls, self.spent.calls),
            ("--max-tokens", self.max_tokens, self.spent.tokens),
            ("--max-cost", self.max_cost, self.spent.cost),
        )

    @property
    def limited(self) -> bool:
        return any(limit is not None for _, limit, _ in self._limits())

    def resume(self, store: Store, run_id: int) -> Budget:
        """Count what the run's saved games already used (a resumed run continues from there)."""
        self.spent, self.games = stored_usage(store, run_id)
        self.in_flight = 0
        self.tripped = None
        return self

    def _over(self, games_ahead: int) -> str | None:
        """The flag of the first limit broken by the usage so far plus `games_ahead` more games at
        the mean usage of the saved ones (None if all fit). A zero limit means no model calls at
        all: it refuses even the first game of a run."""
        scale = 1.0 + games_ahead / self.games if self.games else 1.0
        for flag, limit, used in self._limits():
            if limit is not None and (used * scale > limit or (limit == 0 and self.games == 0)):
                return flag
        return None

    @property
    def reason(self) -> str | None:
        """Why no new game may start, with the usage so far (None while games may start)."""
        if self.tripped is None:
            return None
        if self.tripped == "--max-cost":
            return f"budget --max-cost ${self.max_cost:g}: ${self.spent.cost:.4f} used"
        if self.tripped == "--max-tokens":
            return f"budget --max-tokens {self.max_tokens}: {count(self.spent.tokens, 'token')} used"
        return f"budget --max-calls {self.max_calls}: {count(self.spent.calls, 'call')} used"

    def allows_new_game(self) -> bool:
        """True (and the game counts as in flight) if one more game should fit in every limit.

        Once False, it stays False for this invocation: a stopped run stays stopped until re-run.
        """
        if self.tripped is None and self.limited:
            self.tripped = self._over(self.in_flight + 1)
        if self.tripped is not None:
            return False
        self.in_flight += 1
        return True

    def charge(self, rec: object) -> None:
        """Add a saved game's new calls (cache hits are free)."""
        if not isinstance(rec, GameRecord):
            raise TypeError(f"a model budget counts the calls of games, not of a {type(rec).__name__}")
        self.spent += game_usage(rec)
        self.games += 1
        self.in_flight = max(0, self.in_flight - 1)

    def charge_unfinished(self) -> None:
        """An unsaved game is no longer in flight; its calls are not in the store, so not counted."""
        self.in_flight = max(0, self.in_flight - 1)
