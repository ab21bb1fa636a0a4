"""The one scale every move is scored on, whatever ground truth the game has (DESIGN.md).

A `Grade` gives, for the moves it graded, the mover's expected result after each move: an
expected score (win 1, draw 1/2, loss 0) for games scored by outcome, or an expected payoff in the
game's own utility units where the payoff is the result (poker). A move's loss is the best graded
value minus the played one, so an exact oracle's optimal move is a loss of zero, an engine's is a
loss in expected score, and an equilibrium's is the payoff given up against that equilibrium.

Who grades: the exact oracles through `MoveValues` (`from_values`), an equilibrium or an engine
through their own `grade(state, action)`. Whatever the kind, the session holds a `Grader` (one
method, `judge`): `ExactGrader` wraps an exact oracle, `SelfGrader` one that grades itself; a game
declares which through its ground truth (`games.base.GroundTruth`). `grade_of` grades with a bare oracle.
"""

from __future__ import annotations

import json
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NotRequired, Protocol, TypedDict, runtime_checkable

from .base import MoveValues, Oracle

if TYPE_CHECKING:
    import pyspiel

Unit = Literal["score", "payoff"]
TOLERANCE = 1e-9


class StoredGrade(TypedDict):
    """A `Grade` as a move stores it (`moves.grade`, JSON): actions as strings, as JSON keys are."""

    expected: dict[str, float]
    unit: Unit
    span: float
    source: str
    exact: bool
    tolerance: NotRequired[float]  # only when not TOLERANCE
    detail: NotRequired[dict[str, Any]]  # only when the oracle adds some


@dataclass(frozen=True)
class Grade:
    """Graded moves of one decision, from the mover's point of view.

    `expected`: action -> the mover's expected result after it (every legal move for exact and
    equilibrium oracles; at least the best and the played move for an engine). `span`: the width of
    the scale (1 for an expected score; max - min utility for a payoff), so `loss / span` compares
    games. `source`: who says so, with its limits ("minimax", "stockfish 15.1 nodes=100000").
    `exact`: a zero loss means optimal (minimax, a solver); False for an engine or an equilibrium,
    whose values are relative to the search or to the equilibrium computed. `detail`: what the
    oracle adds (an engine's best move, line and evaluation; an equilibrium's probabilities).
    """

    expected: dict[int, float]
    unit: Unit = "score"
    span: float = 1.0
    source: str = ""
    exact: bool = True
    tolerance: float = TOLERANCE
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def best(self) -> float:
        return max(self.expected.values())

    @property
    def best_actions(self) -> list[int]:
        top = self.best
        return sorted(a for a, v in self.expected.items() if top - v <= self.tolerance)

    @property
    def informative(self) -> bool:
        """False where every graded move is as good as the best: excluded from rates, as the paper
        excludes all-optimal states (003 l.62)."""
        values = self.expected.values()
        return max(values) - min(values) > self.tolerance

    def loss(self, action: int) -> float:
        """Best minus played, never negative (a rounding below zero reads as no loss)."""
        return max(0.0, self.best - self.expected[action])

    def relative_loss(self, action: int) -> float:
        return self.loss(action) / self.span if self.span > 0 else 0.0

    def is_best(self, action: int) -> bool:
        return self.loss(action) <= self.tolerance

    def to_json(self) -> StoredGrade:
        out: StoredGrade = {
            "expected": {str(a): v for a, v in self.expected.items()},
            "unit": self.unit,
            "span": self.span,
            "source": self.source,
            "exact": self.exact,
        }
        if self.tolerance != TOLERANCE:
            out["tolerance"] = self.tolerance
        if self.detail:
            out["detail"] = self.detail
        return out

    @classmethod
    def from_json(cls, data: str | dict[str, Any]) -> Grade:
        d: dict[str, Any] = json.loads(data) if isinstance(data, str) else data
        return cls(
            expected={int(a): float(v) for a, v in d["expected"].items()},
            unit=d.get("unit", "score"),
            span=float(d.get("span", 1.0)),
            source=str(d.get("source", "")),
            exact=bool(d.get("exact", True)),
            tolerance=float(d.get("tolerance", TOLERANCE)),
            detail=dict(d.get("detail") or {}),
        )


def expected_score(value: float) -> float:
    """A game value (+1 win, 0 draw, -1 loss) as an expected score (1, 1/2, 0)."""
    return (value + 1.0) / 2.0


def from_values(mv: MoveValues, source: str = "exact") -> Grade:
    """An exact oracle's values on the one scale: {1, 1/2, 0}, optimality unchanged."""
    return Grade({a: expected_score(v) for a, v in mv.values.items()}, source=source)


@runtime_checkable
class GradingOracle(Protocol):
    """An oracle that grades a decision itself (an equilibrium, an engine)."""

    def grade(self, state: pyspiel.State, action: int) -> Grade:
        """The decision at `state` graded, `action` (the move played) among the graded moves."""
        ...


def grade_of(
    oracle: Oracle | GradingOracle, state: pyspiel.State, action: int, values: MoveValues | None = None
) -> Grade:
    """The one way a decision is graded: the oracle's own grade, else its exact values mapped."""
    if isinstance(oracle, GradingOracle):
        return oracle.grade(state, action)
    mv = values if values is not None else oracle.move_values(state)
    return from_values(mv, source=getattr(oracle, "source", "exact"))


@dataclass(frozen=True)
class Judged:
    """One decision against a game's ground truth.

    `values`: the exact values of every legal move, where the ground truth has them (an exact
    table); None for an equilibrium or an engine. `grade`: the decision on the one scale; None where
    this decision cannot be graded (an engine whose rules differ from OpenSpiel's in the position).
    """

    values: MoveValues | None
    grade: Grade | None


class Grader(Protocol):
    """Every ground truth, as the session asks it: one decision in, its judgement out."""

    def judge(self, state: pyspiel.State, action: int) -> Judged:
        """`action` (the move played at `state`) against the ground truth."""
        ...


@dataclass(frozen=True)
class ExactGrader:
    """An exact oracle (a minimax table, a solver): its values, and the grade they map to."""

    oracle: Oracle

    def judge(self, state: pyspiel.State, action: int) -> Judged:
        mv = self.oracle.move_values(state)
        return Judged(mv, from_values(mv, source=getattr(self.oracle, "source", "exact")))


@dataclass(frozen=True)
class SelfGrader:
    """An oracle that grades a decision itself (an equilibrium, an engine); a decision it raises one
    of `ungraded` for is left ungraded. `executor`: threads on which this grader may judge several
    decisions at once (an engine's pool of processes); the session then grades each move there while
    the game goes on. None: judged where the game plays, one decision at a time."""

    oracle: GradingOracle
    ungraded: tuple[type[Exception], ...] = ()
    executor: Executor | None = None

    def judge(self, state: pyspiel.State, action: int) -> Judged:
        try:
            return Judged(None, self.oracle.grade(state, action))
        except self.ungraded:
            return Judged(None, None)
