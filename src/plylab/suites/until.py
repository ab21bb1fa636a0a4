"""`suite run --until width=W`: stop once every player's interval on the suite's main figure (the
optimal-move rate's 95% Wilson interval) is narrower than W.

The run asks positions in the suite's fixed, seeded order and stops only between positions (every
player has answered the last one), so a stopped run is a prefix of the full run: the same command
stops at the same position (with `--concurrency 1`; with more, the games already in flight finish,
which may lengthen the prefix), and running on without `--until` completes the same suite.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..analysis.stats import MIN_UNITS, wilson
from ..errors import UserError
from ..harness.store import Store


def parse_until(text: str) -> float:
    """`width=W` with 0 < W < 1; UserError naming what is accepted."""
    key, _, value = text.partition("=")
    if key.strip() != "width":
        raise UserError(f"unknown --until '{text}'; accepted: width=W (0 < W < 1)")
    try:
        width = float(value)
    except ValueError:
        raise UserError(f"--until width must be a number between 0 and 1 (got '{value}')") from None
    if not 0 < width < 1 or math.isnan(width):
        raise UserError(f"--until width must be between 0 and 1 (got {value})")
    return width


@dataclass
class WidthStop:
    """The driver's budget for `--until width=W` (`harness.budget.RunBudget`): asked before each
    answer starts, in the jobs' order (`order`: each job's position, drawn as the jobs are, so a run
    of any size never lists them), it refuses the first answer of a new position once every
    player's interval is narrower than `width`."""

    width: float
    players: list[str]
    order: Iterator[int]
    right: dict[str, int] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)
    last: int | None = None  # the position of the answer started last
    stopped_at: int | None = None

    def resume(self, store: Store, run_id: int) -> WidthStop:
        return self  # the study counts the stored answers when it builds this (`count`)

    def count(self, player: str, optimal: bool) -> None:
        self.seen[player] = self.seen.get(player, 0) + 1
        self.right[player] = self.right.get(player, 0) + int(optimal)

    def narrow(self) -> bool:
        for p in self.players:
            n = self.seen.get(p, 0)
            if n < MIN_UNITS:
                return False
            est = wilson(self.right.get(p, 0), n)
            if est.low is None or est.high is None or est.high - est.low >= self.width:
                return False
        return True

    def allows_new_game(self) -> bool:
        position = next(self.order, None)
        if position is None:
            return False
        if position != self.last and self.narrow():  # a new position's first answer
            self.stopped_at = position
            return False
        self.last = position
        return True

    def charge(self, rec: object) -> None:
        player, optimal = getattr(rec, "player", None), getattr(rec, "optimal", None)
        if isinstance(player, str) and isinstance(optimal, bool):
            self.count(player, optimal)

    def charge_unfinished(self) -> None:
        """A provider failure: nothing answered, nothing counted (the same command asks it again)."""

    @property
    def reason(self) -> str | None:
        if self.stopped_at is None:
            return None
        return (
            f"--until width={self.width:g}: every player's optimal-rate interval is narrower than "
            f"{self.width:g} before position {self.stopped_at}"
        )
