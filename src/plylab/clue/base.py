"""The Clue player base: what a seat decides (`ClueDecision`) and the Clue family's player class.

Every Clue player (the bots in `players.py`, the model in `llm.py`) builds on this module and
nothing here imports a player, so the two never import each other. A player gets the same run
context (`plylab.players.RunContext`), registers in the same registry (`plylab.players.PLAYERS`)
and records model calls as the same `Attempt` as the two-player games' players do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..jsontypes import JSONObject
from ..players.base import Attempt, BasePlayer, OptionsT, RunContext, resolve
from ..specs import Params, Spec
from .cards import Triple
from .events import Suggestion
from .prompts import Deductions
from .view import ClueView

# In a turn's error when the model's reply was cut off at max_tokens; the Clue report counts them.
TRUNCATED = "reply cut off at max_tokens"


@dataclass
class ClueDecision:
    kind: str  # suggest | accuse | pass
    cards: Triple | None = None
    deductions: Deductions | None = None
    call: Attempt | None = None  # the turn's model call, kept whether or not its reply was usable
    ready: bool | None = None  # the player's own matrix flag, for players that see one
    note: JSONObject = field(default_factory=dict)

    @property
    def failure(self) -> str | None:
        return self.call.failure if self.call else None


class CluePlayer(BasePlayer[OptionsT, ClueView, ClueDecision]):
    """A Clue seat: the shared player base (`plylab.players.BasePlayer`: options, seeded stream,
    context, `prepare`, `act`) with what it may know as a `ClueView` and its answer a `ClueDecision`.
    Subclasses set `name`, and `Options` (a pydantic model of spec keys) as their type argument,
    and register with `plylab.players.register_player`, beside the two-player games' players."""

    family = "clue"
    command = "plylab clue run"
    noun = "Clue player"

    def __init__(
        self, spec: Spec, options: OptionsT, seat: int, seed: int, context: RunContext | None = None
    ) -> None:
        super().__init__(spec, options, seed, context)
        self.seat = seat

    @classmethod
    def sees_matrix(cls, options: Params) -> bool:
        """True for players whose decisions are driven by (or prompted with) a possibility matrix."""
        return False

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


def clue_player_class(spec_text: str) -> tuple[Spec, type[CluePlayer[Any]], Params]:
    """A Clue player spec, validated through the one player registry (see `plylab.players.resolve`)."""
    return resolve(spec_text, CluePlayer)


def make_clue_player(
    spec_text: str, seat: int, seed: int, context: RunContext | None = None
) -> CluePlayer[Any]:
    spec, cls, options = clue_player_class(spec_text)
    return cls(spec, options, seat, seed, context)


def sees_matrix(spec_text: str) -> bool:
    _, cls, options = clue_player_class(spec_text)
    return cls.sees_matrix(options)
