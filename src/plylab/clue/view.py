"""A player's view: everything one seat may know, built only from its hand and observed events.

Players, prompts, the matrix and the oracle all read a `ClueView` and nothing else, so hiding
information is one function (`ClueState.view`) plus `events.seen_by`, and it is tested by
replaying games in other deals that the same seat cannot tell apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Deck, Triple
from .events import Accusation, Event, Suggestion


@dataclass(frozen=True)
class ShowRequest:
    """Asked of the disprover: show the suggester one of `cards` (those the disprover holds)."""

    suggester: int
    suggested: Triple
    cards: tuple[int, ...]


@dataclass(frozen=True)
class ClueView:
    deck: Deck
    me: int
    num_players: int
    hand: tuple[int, ...]  # sorted
    hand_sizes: tuple[int, ...]  # public: the deal is even up to one card
    events: tuple[Event, ...]  # public events, with private detail only where `me` took part
    turn: int  # number of the turn being played (1-based)
    round: int  # 1-based; a round ends when play passes the first seat again
    out: frozenset[int]  # players whose accusation was wrong (they still answer suggestions)
    turn_limit: int
    pending: Suggestion | None = None  # public: a suggestion awaiting its disprover's card
    show: ShowRequest | None = None  # set when `me` is that disprover: the cards it may show

    @property
    def accused(self) -> bool:
        return any(isinstance(e, Accusation) and e.player == self.me for e in self.events)
