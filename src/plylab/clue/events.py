"""What happens in a Clue game, as values; `seen_by` is the one place private detail is hidden.

The engine records every event in full (which card was shown). A player's view holds the same
events passed through `seen_by`: the card shown on a suggestion survives only for the suggester
and the player who showed it; everything else in an event is public at the table.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Self

from .cards import Triple


class _Value:
    """An immutable value: a copied state (the session clones one per move) shares it."""

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self


@dataclass(frozen=True)
class Suggestion(_Value):
    turn: int
    round: int
    player: int
    cards: Triple
    disprover: int | None  # first player clockwise holding one of the cards; None if nobody
    shown: int | None = None  # the card shown (hidden from everyone but suggester and disprover)


@dataclass(frozen=True)
class Accusation(_Value):
    turn: int
    round: int
    player: int
    cards: Triple
    correct: bool  # public: a right accusation ends the game, a wrong one puts the accuser out


@dataclass(frozen=True)
class Pass(_Value):
    turn: int
    round: int
    player: int


Event = Suggestion | Accusation | Pass


def seen_by(event: Event, player: int) -> Event:
    """The event as `player` observes it."""
    if (
        isinstance(event, Suggestion)
        and event.shown is not None
        and player not in (event.player, event.disprover)
    ):
        return replace(event, shown=None)
    return event
