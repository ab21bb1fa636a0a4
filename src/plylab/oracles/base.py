"""The oracle protocol shared by the minimax tables and the Connect Four solver."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import pyspiel


@dataclass(frozen=True)
class MoveValues:
    """Exact values of every legal move, from the point of view of the player to move.

    `values`: +1 win, 0 draw, -1 loss under optimal play after that move.
    `scores`: a finer exact score where the oracle has one (Connect Four: positive = the mover
    wins, larger = sooner); None where value is all there is.
    """

    values: dict[int, int]
    scores: dict[int, int] | None = None

    @property
    def value(self) -> int:
        return max(self.values.values())

    @property
    def score(self) -> int | None:
        return max(self.scores.values()) if self.scores else None

    @property
    def informative(self) -> bool:
        """False where every legal move is optimal: such states are excluded from optimality."""
        return len(set(self.values.values())) > 1

    @property
    def informative_by_score(self) -> bool:
        return self.scores is not None and len(set(self.scores.values())) > 1

    def optimal(self, action: int) -> bool:
        return self.values[action] == self.value

    def optimal_by_score(self, action: int) -> bool | None:
        if self.scores is None:
            return None
        return self.scores[action] == self.score


class Oracle(Protocol):
    def move_values(self, state: pyspiel.State) -> MoveValues:
        """Values of every legal move of a non-terminal state."""
        ...


def best_actions(mv: MoveValues, *, by: str = "value") -> list[int]:
    table = mv.scores if by == "score" and mv.scores is not None else mv.values
    top = max(table.values())
    return sorted(a for a, v in table.items() if v == top)
