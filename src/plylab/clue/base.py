"""The Clue player base: what a seat decides (`ClueDecision`), the player class, and its registry.

Every Clue player (the bots in `players.py`, the model in `llm.py`) builds on this module and
nothing here imports a player, so the two never import each other. A player gets the same run
context (`plylab.players.RunContext`) and records model calls as the same `Attempt` as the
two-player games' players do.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic

from typing_extensions import TypeVar

from ..players.base import Attempt, RunContext
from ..registry import Registry
from ..specs import Params, Spec, bind, parse_spec
from .cards import Triple
from .events import Suggestion
from .prompts import Deductions
from .view import ClueView

OptionsT = TypeVar("OptionsT", bound=Params, default=Params)

# In a turn's error when the model's reply was cut off at max_tokens; the Clue report counts them.
TRUNCATED = "reply cut off at max_tokens"


@dataclass
class ClueDecision:
    kind: str  # suggest | accuse | pass
    cards: Triple | None = None
    deductions: Deductions | None = None
    call: Attempt | None = None  # the turn's model call, kept whether or not its reply was usable
    ready: bool | None = None  # the player's own matrix flag, for players that see one
    note: dict[str, Any] = field(default_factory=dict)

    @property
    def failure(self) -> str | None:
        return self.call.failure if self.call else None


class CluePlayer(ABC, Generic[OptionsT]):
    """Subclasses set `name`, and `Options` (a pydantic model of spec keys) as their type argument."""

    name: ClassVar[str]
    Options: ClassVar[type[Params]] = Params
    summary: ClassVar[str] = ""
    uses_model: ClassVar[bool] = False

    def __init__(
        self, spec: Spec, options: OptionsT, seat: int, seed: int, context: RunContext | None = None
    ) -> None:
        self.spec = spec
        self.options: OptionsT = options
        self.seat = seat
        self.seed = seed
        self.rng = random.Random(seed)
        self.context = context or RunContext()

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
        """Showing a card is a rule, not a decision: a card this suggester has already seen from
        you if you can (it leaks nothing new), else a random one."""
        assert view.show is not None
        request = view.show
        seen = {
            e.shown
            for e in view.events
            if isinstance(e, Suggestion) and e.disprover == view.me and e.player == request.suggester
        }
        again = [c for c in request.cards if c in seen]
        return again[0] if again else self.rng.choice(request.cards)

    def close(self) -> None:
        """Release per-game resources."""


CLUE_PLAYERS: Registry[type[CluePlayer[Any]]] = Registry("Clue player")


def register_clue_player(cls: type[CluePlayer[Any]]) -> type[CluePlayer[Any]]:
    return CLUE_PLAYERS.add(cls.name, cls)


def clue_player_class(spec_text: str) -> tuple[Spec, type[CluePlayer[Any]], Params]:
    """Validate a spec without building a player (cheap; rejects bad input up front)."""
    spec = parse_spec(spec_text, kind="Clue player spec")
    cls = CLUE_PLAYERS.get(spec.name)
    return spec, cls, bind(spec, cls.Options, kind="Clue player spec")


def make_clue_player(
    spec_text: str, seat: int, seed: int, context: RunContext | None = None
) -> CluePlayer[Any]:
    spec, cls, options = clue_player_class(spec_text)
    return cls(spec, options, seat, seed, context)


def sees_matrix(spec_text: str) -> bool:
    _, cls, options = clue_player_class(spec_text)
    return cls.sees_matrix(options)
