"""Clue players: a small protocol (decide from a `ClueView`), a registry, and the bots.

Specs: `clue-random[:accuse=P]`, `clue-matrix`, `clue-oracle`, and `clue-llm:model=M,...`
(in `llm.py`, registered here). Every player is built per game and seat, so no state leaks
between games. Showing a card is a rule, not a model call, for every player: show a card this
suggester has already seen from you if you can (it leaks nothing new), else a random one.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import Field

from ..players.base import Attempt
from ..registry import Registry
from ..specs import Params, Spec, bind, parse_spec
from .cards import Triple
from .events import Suggestion
from .matrix import PossibilityMatrix
from .oracle import ClueOracle
from .prompts import Deductions
from .view import ClueView


# One model call of a turn, kept whether or not its reply was usable: the same record as a move's attempt.
ModelCall = Attempt


@dataclass
class ClueDecision:
    kind: str  # suggest | accuse | pass
    cards: Triple | None = None
    deductions: Deductions | None = None
    call: ModelCall | None = None
    ready: bool | None = None  # the player's own matrix flag, for players that see one
    note: dict[str, Any] = field(default_factory=dict)

    @property
    def failure(self) -> str | None:
        return self.call.failure if self.call else None


@dataclass
class ClueContext:
    """What the runner lends a player: a key unique per game, and the response cache
    (a `plylab.models.ResponseCache`, untyped so bots never import the model stack)."""

    job_key: str = ""
    cache: Any = None


class CluePlayer(ABC):
    name: ClassVar[str]
    Options: ClassVar[type[Params]] = Params
    summary: ClassVar[str] = ""
    uses_model: ClassVar[bool] = False

    def __init__(self, spec: Spec, options: Params, seat: int, seed: int, context: ClueContext | None = None) -> None:
        self.spec = spec
        self.options = options
        self.seat = seat
        self.seed = seed
        self.rng = random.Random(seed)
        self.context = context or ClueContext()

    @classmethod
    def sees_matrix(cls, options: Params) -> bool:
        """True for players whose decisions are driven by (or prompted with) a possibility matrix."""
        return False

    @classmethod
    def prepare(cls, options: Params) -> None:
        """Check, before any game starts, that the player can be built (e.g. its model exists)."""

    @abstractmethod
    async def act(self, view: ClueView) -> ClueDecision: ...

    def show(self, view: ClueView) -> int:
        assert view.show is not None
        request = view.show
        seen = {
            e.shown for e in view.events
            if isinstance(e, Suggestion) and e.disprover == view.me and e.player == request.suggester
        }
        again = [c for c in request.cards if c in seen]
        return again[0] if again else self.rng.choice(request.cards)

    def close(self) -> None:
        """Release per-game resources."""


CLUE_PLAYERS: Registry[type[CluePlayer]] = Registry("Clue player")


def register_clue_player(cls: type[CluePlayer]) -> type[CluePlayer]:
    return CLUE_PLAYERS.add(cls.name, cls)


def clue_player_class(spec_text: str) -> tuple[Spec, type[CluePlayer], Params]:
    """Validate a spec without building a player (cheap; rejects bad input up front)."""
    spec = parse_spec(spec_text, kind="Clue player spec")
    cls = CLUE_PLAYERS.get(spec.name)
    return spec, cls, bind(spec, cls.Options, kind="Clue player spec")


def make_clue_player(spec_text: str, seat: int, seed: int, context: ClueContext | None = None) -> CluePlayer:
    spec, cls, options = clue_player_class(spec_text)
    return cls(spec, options, seat, seed, context)


def sees_matrix(spec_text: str) -> bool:
    _, cls, options = clue_player_class(spec_text)
    return cls.sees_matrix(options)


def _pick(rng: random.Random, candidates: tuple[tuple[int, ...], ...]) -> Triple:
    s, w, r = (rng.choice(cands) for cands in candidates)
    return (s, w, r)


def _belief(candidates: tuple[tuple[int, ...], ...]) -> dict[int, int | None]:
    return {i: (cands[0] if len(cands) == 1 else None) for i, cands in enumerate(candidates)}


class RandomOptions(Params):
    accuse: float = Field(0.0, ge=0.0, le=1.0, description="chance per turn to accuse a random triple")


@register_clue_player
class RandomPlayer(CluePlayer):
    """Suggests uniformly at random; states nothing; accuses at random only if asked to."""

    name = "clue-random"
    Options = RandomOptions
    summary = "random suggestions (and random accusations with probability `accuse`)"

    async def act(self, view: ClueView) -> ClueDecision:
        triple = self.rng.choice(view.deck.triples)
        if self.rng.random() < self.options.accuse:  # type: ignore[attr-defined]
            return ClueDecision("accuse", triple, Deductions(envelope=dict(enumerate(triple))))
        return ClueDecision("suggest", triple, Deductions())


@register_clue_player
class MatrixPlayer(CluePlayer):
    """The rule-based matrix alone: suggests envelope candidates, accuses as soon as it is ready."""

    name = "clue-matrix"
    summary = "possibility-matrix bot: accuses when the matrix is ready"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.matrix: PossibilityMatrix | None = None

    @classmethod
    def sees_matrix(cls, options: Params) -> bool:
        return True

    async def act(self, view: ClueView) -> ClueDecision:
        if self.matrix is None:
            self.matrix = PossibilityMatrix(view.deck, view.num_players, view.hand_sizes, view.me, view.hand)
        self.matrix.update(view)
        known = {c: h for c, h in self.matrix.known_holders().items() if c not in view.hand}
        cands = self.matrix.candidates()
        deductions = Deductions(envelope=_belief(cands), known=known)
        solution = self.matrix.solution()
        if solution is not None:
            return ClueDecision("accuse", solution, deductions, ready=True)
        return ClueDecision("suggest", _pick(self.rng, cands), deductions, ready=False)


@register_clue_player
class OraclePlayer(CluePlayer):
    """Complete deduction: states only entailed facts, accuses the moment the solution is entailed."""

    name = "clue-oracle"
    summary = "SAT-backbone bot: accuses when the solution is entailed"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.oracle: ClueOracle | None = None

    async def act(self, view: ClueView) -> ClueDecision:
        if self.oracle is None:
            self.oracle = ClueOracle(view.deck, view.num_players, view.hand_sizes, view.me, view.hand)
        self.oracle.update(view)
        known = {c: h for c, h in self.oracle.known_holders().items() if c not in view.hand}
        cands = self.oracle.candidates()
        deductions = Deductions(envelope=_belief(cands), known=known)
        solution = self.oracle.solution()
        if solution is not None:
            return ClueDecision("accuse", solution, deductions)
        return ClueDecision("suggest", _pick(self.rng, cands), deductions)

    def close(self) -> None:
        if self.oracle is not None:
            self.oracle.close()
            self.oracle = None


def _register_optional() -> None:
    try:
        from . import llm  # noqa: F401  (registers clue-llm; imports the model door lazily)
    except ModuleNotFoundError as exc:  # pragma: no cover - a missing optional dependency
        if not (exc.name or "").startswith("plylab"):
            raise


_register_optional()

__all__ = [
    "CLUE_PLAYERS", "ClueContext", "ClueDecision", "CluePlayer", "ModelCall",
    "clue_player_class", "make_clue_player", "register_clue_player", "sees_matrix",
]
