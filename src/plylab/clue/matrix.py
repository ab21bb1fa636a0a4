"""The possibility matrix (the paper's tool): YES / NO / MAYBE for every (card, holder).

Holders are the seats and the envelope. The matrix applies these rules, and only these, to a
fixpoint after every observation (README.md in this package lists them with examples):

  R1 own hand     my cards are YES for me; every other card is NO for me.
  R2 reveal       a card shown to me is YES for the seat that showed it.
  R3 passes       seats strictly between a suggester and the disprover (all other seats when
                  nobody disproved) hold none of the three cards: NO.
  R4 one holder   a YES for a card makes every other holder of that card NO; a card NO for all
                  holders but one is YES for that one.
  R5 hand size    a seat with as many YES as its hand size is NO on its other cards; a seat whose
                  YES plus MAYBE equals its hand size is YES on those MAYBE cards.
  R6 envelope     the envelope holds one card per category: a YES in a category makes the others
                  NO; a category with one card not NO makes it YES.
  R7 showed one   a disprover that showed someone else a card holds one of the three; when two of
                  them are NO for it, the third is YES. (Satisfied once any is YES.)
  R8 accusation   a wrong accusation's cards are not all in the envelope: when two are YES for
                  the envelope, the third is NO.
It is ready to accuse when every category has exactly one envelope candidate left.

Every rule is sound, so the matrix never states a false fact; it is not complete (it never
combines two R7 constraints, or a constraint with a hand size, as the SAT oracle does).
"""

from __future__ import annotations

from enum import IntEnum

from .cards import Deck, Triple
from .events import Accusation, Event, Pass, Suggestion
from .view import ClueView


class Mark(IntEnum):
    NO = -1
    MAYBE = 0
    YES = 1


class PossibilityMatrix:
    def __init__(
        self, deck: Deck, num_players: int, hand_sizes: tuple[int, ...], me: int, hand: tuple[int, ...]
    ) -> None:
        self.deck = deck
        self.n = num_players
        self.me = me
        self.envelope = num_players
        self.holders = num_players + 1
        self.sizes = tuple(hand_sizes) + (3,)
        self.cells = [[Mark.MAYBE] * self.holders for _ in range(deck.size)]
        self.showed_one: list[tuple[int, Triple]] = []  # R7: (disprover, cards)
        self.wrong: list[Triple] = []  # R8
        self._seen = 0
        for c in range(deck.size):  # R1
            self._set(c, me, Mark.YES if c in hand else Mark.NO)
        self.deduce()

    @classmethod
    def for_view(cls, view: ClueView) -> PossibilityMatrix:
        matrix = cls(view.deck, view.num_players, view.hand_sizes, view.me, view.hand)
        matrix.update(view)
        return matrix

    def _set(self, card: int, holder: int, mark: Mark) -> bool:
        old = self.cells[card][holder]
        if old == mark:
            return False
        if old != Mark.MAYBE:
            raise ValueError(
                f"contradiction: {self.deck.name(card)} / holder {holder} is {old.name}, now {mark.name}"
            )
        self.cells[card][holder] = mark
        return True

    # observations ----------------------------------------------------------------------
    def observe(self, event: Event) -> None:
        if isinstance(event, Suggestion):
            stop = event.disprover if event.disprover is not None else event.player
            seat = (event.player + 1) % self.n
            while seat != stop:  # R3
                for c in event.cards:
                    self._set(c, seat, Mark.NO)
                seat = (seat + 1) % self.n
            if event.shown is not None:  # R2 (or my own showing: already YES by R1)
                self._set(event.shown, event.disprover, Mark.YES)  # type: ignore[arg-type]
            elif event.disprover is not None:
                self.showed_one.append((event.disprover, event.cards))
        elif isinstance(event, Accusation):
            if event.correct:
                for c in event.cards:
                    self._set(c, self.envelope, Mark.YES)
            else:
                self.wrong.append(event.cards)
        elif not isinstance(event, Pass):
            raise TypeError(f"unknown event {event!r}")

    def update(self, view: ClueView) -> None:
        for event in view.events[self._seen :]:
            self.observe(event)
        self._seen = len(view.events)
        self.deduce()

    def deduce(self) -> None:
        """Apply the rules (R4-R6) until nothing changes; `update` does this after each view."""
        changed = True
        while changed:
            changed = False
            for c, row in enumerate(self.cells):  # R4
                yes = [h for h, m in enumerate(row) if m == Mark.YES]
                maybe = [h for h, m in enumerate(row) if m == Mark.MAYBE]
                if yes:
                    for h in maybe:
                        changed |= self._set(c, h, Mark.NO)
                elif len(maybe) == 1:
                    changed |= self._set(c, maybe[0], Mark.YES)
            for h in range(self.n):  # R5
                col = [self.cells[c][h] for c in range(self.deck.size)]
                n_yes, n_maybe = col.count(Mark.YES), col.count(Mark.MAYBE)
                if n_maybe and n_yes == self.sizes[h]:
                    for c in range(self.deck.size):
                        changed |= self.cells[c][h] == Mark.MAYBE and self._set(c, h, Mark.NO)
                elif n_maybe and n_yes + n_maybe == self.sizes[h]:
                    for c in range(self.deck.size):
                        changed |= self.cells[c][h] == Mark.MAYBE and self._set(c, h, Mark.YES)
            for cat in self.deck.categories:  # R6
                marks = [self.cells[c][self.envelope] for c in cat]
                if Mark.YES in marks:
                    for c in cat:
                        changed |= self.cells[c][self.envelope] == Mark.MAYBE and self._set(
                            c, self.envelope, Mark.NO
                        )
                else:
                    left = [c for c, m in zip(cat, marks) if m != Mark.NO]
                    if len(left) == 1:
                        changed |= self._set(left[0], self.envelope, Mark.YES)
            for seat, cards in self.showed_one:  # R7
                marks = [self.cells[c][seat] for c in cards]
                if Mark.YES not in marks and marks.count(Mark.NO) == 2:
                    changed |= self._set(cards[marks.index(Mark.MAYBE)], seat, Mark.YES)
            for cards in self.wrong:  # R8
                marks = [self.cells[c][self.envelope] for c in cards]
                if marks.count(Mark.YES) == 2 and Mark.MAYBE in marks:
                    changed |= self._set(cards[marks.index(Mark.MAYBE)], self.envelope, Mark.NO)

    # answers ---------------------------------------------------------------------------
    def cell(self, card: int, holder: int) -> Mark:
        return self.cells[card][holder]

    def candidates(self) -> tuple[tuple[int, ...], ...]:
        """Per category, the cards not yet ruled out of the envelope."""
        return tuple(
            tuple(c for c in cat if self.cells[c][self.envelope] != Mark.NO) for cat in self.deck.categories
        )

    @property
    def ready(self) -> bool:
        return all(len(cands) == 1 for cands in self.candidates())

    def solution(self) -> Triple | None:
        cands = self.candidates()
        return (cands[0][0], cands[1][0], cands[2][0]) if self.ready else None

    def known_holders(self) -> dict[int, int]:
        return {c: row.index(Mark.YES) for c, row in enumerate(self.cells) if Mark.YES in row}
