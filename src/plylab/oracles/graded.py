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


TruthKind = Literal["exact", "equilibrium", "engine"]
Judgement = Literal["best", "lost", "equal"]


@dataclass(frozen=True)
class Scale:
    """How a kind of ground truth's grades are named: the words a surface prints, never whether it
    prints them. `value`: what a move's number is ("exact expected score", "equity"); `unit`: its unit
    as a table heads it; `best` / `lost`: the judgement of a move that kept / gave up value;
    `against`: what the loss is measured against."""

    value: str
    unit: str
    best: str
    lost: str
    against: str


def scale_of(kind: TruthKind, unit: Unit, name: str) -> Scale:
    """The words of a ground truth of `kind` grading in `unit` (`name`: the truth, "gnubg")."""
    if kind == "exact":
        return Scale(
            "exact expected score", "expected score", "optimal", "not optimal", f"the exact values ({name})"
        )
    if kind == "equilibrium":
        return Scale(
            "expected payoff against the equilibrium",
            "payoff",
            "lost nothing against the equilibrium",
            "lost expected payoff",
            f"the equilibrium ({name})",
        )
    if unit == "payoff":  # an engine that grades in the game's points (gnubg's cubeless equity)
        return Scale(
            f"equity by {name}", "points", f"{name}'s best play", "lost equity", f"{name}'s best play"
        )
    return Scale(
        f"expected score by {name}", "expected score", f"{name}'s best move", "lost expected score", name
    )


@dataclass(frozen=True)
class Decision:
    """One graded decision, as every surface reads it: the terminal tables, the site's pages, the
    inspect scorers and exports. Built from the stored grade in one place (`decision`), so a new
    ground truth appears everywhere by grading; its kind changes the words (`scale`), never a shape.
    """

    kind: TruthKind
    """What grades: an exact table or solver, an equilibrium, an engine (`GroundTruth.kind`)."""
    truth: str
    """The ground truth's name as the game declares it ("minimax table", "gnubg")."""
    source: str
    """Who graded this decision, with its limits ("gnubg 1.07 plies=2")."""
    unit: Unit
    """`score` (win 1, draw 1/2, loss 0) or `payoff` (the game's own utility: chips, points)."""
    span: float
    """The width of the scale, so `loss / span` compares games."""
    exact: bool
    """A zero loss means optimal (an exact truth); False for an engine or an equilibrium."""
    values: dict[int, float]
    """Every graded legal move's value for the mover, on the scale."""
    probabilities: dict[int, float] | None
    """The truth's probability of each move where it has a policy (an equilibrium); else None."""
    played: int
    """The move the player made."""
    best: tuple[int, ...]
    """The moves worth the best value (within the tolerance)."""
    loss: float
    """Best minus played, never negative."""
    judgement: Judgement
    """`best`, `lost` (above the tolerance), or `equal` (every graded move worth the same: counted
    in no rate, as the paper leaves out all-optimal positions)."""

    @property
    def scale(self) -> Scale:
        return scale_of(self.kind, self.unit, self.truth)

    @property
    def informative(self) -> bool:
        return self.judgement != "equal"

    @property
    def lost(self) -> bool:
        """Counted as a move that gave up value (informative and above the tolerance)."""
        return self.judgement == "lost"


def decision(grade: Grade, played: int, kind: TruthKind, truth: str = "") -> Decision:
    """The one record of a graded decision, from its stored grade and the move played."""
    policy = grade.detail.get("policy")
    return Decision(
        kind=kind,
        truth=truth or grade.source,
        source=grade.source,
        unit=grade.unit,
        span=grade.span,
        exact=grade.exact,
        values=dict(grade.expected),
        probabilities={int(a): float(p) for a, p in policy.items()} if isinstance(policy, dict) else None,
        played=played,
        best=tuple(grade.best_actions),
        loss=grade.loss(played) if played in grade.expected else 0.0,
        judgement="equal" if not grade.informative else "best" if grade.is_best(played) else "lost",
    )
