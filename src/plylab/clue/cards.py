"""The Clue deck: three categories of named cards, indexed globally (suspects, weapons, rooms).

Cards are plain ints everywhere (fast sets, SAT variables, JSON); `Deck` turns them into names.
Smaller decks (a prefix of each category) exist so tests can enumerate every possible deal.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import product

SUSPECTS = ("Miss Scarlet", "Colonel Mustard", "Mrs. White", "Mr. Green", "Mrs. Peacock", "Professor Plum")
WEAPONS = ("Candlestick", "Knife", "Lead Pipe", "Revolver", "Rope", "Wrench")
ROOMS = (
    "Kitchen",
    "Ballroom",
    "Conservatory",
    "Dining Room",
    "Billiard Room",
    "Library",
    "Lounge",
    "Hall",
    "Study",
)
CATEGORIES = ("suspect", "weapon", "room")

Triple = tuple[int, int, int]  # (suspect card, weapon card, room card), global card indices


@dataclass(frozen=True)
class Deck:
    suspects: tuple[str, ...] = SUSPECTS
    weapons: tuple[str, ...] = WEAPONS
    rooms: tuple[str, ...] = ROOMS

    @classmethod
    def of_sizes(cls, suspects: int = 6, weapons: int = 6, rooms: int = 9) -> Deck:
        """The first `n` cards of each classic category (tests use 2-3 per category)."""
        if not (1 <= suspects <= len(SUSPECTS) and 1 <= weapons <= len(WEAPONS) and 1 <= rooms <= len(ROOMS)):
            raise ValueError(f"deck sizes must be 1..6, 1..6, 1..9; got {suspects}, {weapons}, {rooms}")
        return cls(SUSPECTS[:suspects], WEAPONS[:weapons], ROOMS[:rooms])

    @cached_property
    def names(self) -> tuple[str, ...]:
        return self.suspects + self.weapons + self.rooms

    def __deepcopy__(self, memo: dict[int, object]) -> Deck:
        """Immutable: a copied state (the session clones one per move) shares it."""
        return self

    @property
    def size(self) -> int:
        return len(self.names)

    @cached_property
    def categories(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """Card indices of each category, in CATEGORIES order."""
        s, w = len(self.suspects), len(self.weapons)
        return (tuple(range(s)), tuple(range(s, s + w)), tuple(range(s + w, self.size)))

    def category(self, card: int) -> int:
        return next(i for i, cards in enumerate(self.categories) if card in cards)

    @cached_property
    def _index(self) -> dict[str, int]:
        return {name.lower(): i for i, name in enumerate(self.names)}

    def index(self, name: str) -> int:
        """Card index of a name (case-insensitive); KeyError if the deck has no such card."""
        return self._index[name.strip().lower()]

    def name(self, card: int) -> str:
        return self.names[card]

    @cached_property
    def triples(self) -> tuple[Triple, ...]:
        """Every (suspect, weapon, room); a triple's position is its action offset in the engine."""
        return tuple(product(*self.categories))

    def triple_id(self, triple: Triple) -> int:
        s, w, r = triple
        cs, cw, cr = self.categories
        return ((s - cs[0]) * len(cw) + (w - cw[0])) * len(cr) + (r - cr[0])

    def describe(self, cards: tuple[int, ...] | list[int]) -> str:
        return ", ".join(self.names[c] for c in cards)


CLASSIC = Deck()
