"""The complete-deduction oracle: an incremental SAT backbone over one player's observations.

Variables x(card, holder) for every card and holder (each seat, and the envelope as holder n).
Constraints, all from the player's view:
  - every card has exactly one holder; the envelope holds exactly one card per category;
  - each seat holds exactly its (public) hand size (pysat.card cardinality encoding);
  - the player's own hand, as units;
  - a suggestion: seats strictly between the suggester and the disprover (or all other seats if
    nobody disproved) hold none of the three cards; the disprover holds at least one of them
    ("showed one of these three"), and the card itself when it was shown to this player;
  - a wrong accusation: not all three of its cards are in the envelope (one clause); a right one
    fixes the envelope.
The backbone (every literal true in all models) is exactly the set of facts the observations
entail. It only grows as clauses are added, so each update re-tests only the still-open variables
on one incremental solver, with assumptions. Models found earlier are kept: one that also
satisfies the clauses added since is still a model, and shows for free which open variables can
take either value, so most updates need one or two SAT calls.
"""

from __future__ import annotations

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from .cards import Deck, Triple
from .events import Accusation, Event, Pass, Suggestion
from .view import ClueView

SOLVER = "g4"  # Glucose 4: fast incremental solving under assumptions, with unit propagation
MODEL_POOL = 24  # recent models kept as witnesses


class Inconsistent(RuntimeError):
    """The observations admit no deal (a bug in the engine or the encoding)."""


class ClueOracle:
    def __init__(
        self, deck: Deck, num_players: int, hand_sizes: tuple[int, ...], me: int, hand: tuple[int, ...]
    ) -> None:
        self.deck = deck
        self.n = num_players
        self.me = me
        self.holders = num_players + 1  # seats, then the envelope
        self.envelope = num_players
        n_vars = deck.size * self.holders
        self.pool = IDPool(start_from=n_vars + 1)
        self.solver = Solver(name=SOLVER)
        self.value: dict[int, bool] = {}  # var -> entailed value, for decided primary variables
        self._seen = 0
        self._models: list[list[int]] = []  # recent models, as pysat returns them
        self._new: list[list[int]] = []  # clauses added since the models were checked
        self._guards = 0  # activation literals used so far (each is retired after one use)
        for c in range(deck.size):
            self._add_all(
                CardEnc.equals(
                    [self.var(c, h) for h in range(self.holders)], 1, encoding=EncType.pairwise
                ).clauses
            )
        for cat in deck.categories:
            self._add_all(
                CardEnc.equals(
                    [self.var(c, self.envelope) for c in cat], 1, encoding=EncType.pairwise
                ).clauses
            )
        for seat, size in enumerate(hand_sizes):
            lits = [self.var(c, seat) for c in range(deck.size)]
            enc = CardEnc.equals(lits, size, vpool=self.pool, encoding=EncType.seqcounter)
            self._add_all(enc.clauses)
        for c in range(deck.size):
            self.solver.add_clause([self.var(c, me) if c in hand else -self.var(c, me)])
        self.updates = 0
        self.sat_calls = 0

    @classmethod
    def for_view(cls, view: ClueView) -> ClueOracle:
        oracle = cls(view.deck, view.num_players, view.hand_sizes, view.me, view.hand)
        oracle.update(view)
        return oracle

    def var(self, card: int, holder: int) -> int:
        return card * self.holders + holder + 1

    def _add_all(self, clauses: list[list[int]]) -> None:
        for clause in clauses:
            self.solver.add_clause(clause)
        self._new.extend(clauses)

    # observations ----------------------------------------------------------------------
    def observe(self, event: Event) -> None:
        """Add the clauses one observed event implies (call `update` to refresh the backbone)."""
        if isinstance(event, Suggestion):
            self._add_all(suggestion_clauses(self, event))
        elif isinstance(event, Accusation):
            lits = [self.var(c, self.envelope) for c in event.cards]
            self._add_all([[lit] for lit in lits] if event.correct else [[-lit for lit in lits]])
        elif not isinstance(event, Pass):
            raise TypeError(f"unknown event {event!r}")

    def update(self, view: ClueView) -> None:
        """Consume the view's new events and recompute the backbone."""
        for event in view.events[self._seen :]:
            self.observe(event)
        self._seen = len(view.events)
        self.refresh()

    def refresh(self) -> None:
        self.updates += 1
        ok, implied = self.solver.propagate(assumptions=[])
        if not ok:
            raise Inconsistent("observations contradict each other")
        n_primary = self.deck.size * self.holders
        for lit in implied:
            if abs(lit) <= n_primary:
                self.value[abs(lit)] = lit > 0
        new, self._new = self._new, []
        self._models = [m for m in self._models if all(any(m[abs(lit) - 1] == lit for lit in c) for c in new)]
        open_vars = [v for v in range(1, n_primary + 1) if v not in self.value]
        if not open_vars:
            return
        if not self._models:
            self._solve([])
        seen_true: set[int] = set()
        seen_false: set[int] = set()
        for m in self._models:
            for v in open_vars:
                (seen_true if m[v - 1] > 0 else seen_false).add(v)
        candidates = {v: v in seen_true for v in open_vars if not (v in seen_true and v in seen_false)}
        while candidates:
            # One call asks for a model flipping at least one candidate (phases: flip them all).
            # UNSAT proves every candidate at once; a model rules out all it flipped.
            flips = [-v if val else v for v, val in candidates.items()]
            self._guards += 1
            guard = self.pool.id(("flip", self._guards))
            self.solver.add_clause([-guard, *flips])
            self.solver.set_phases(flips)
            model = self._solve([guard])
            self.solver.add_clause([-guard])
            if model is None:
                for v, val in candidates.items():
                    self.value[v] = val
                    self.solver.add_clause([v if val else -v])
                break
            for u in [u for u, uval in candidates.items() if (model[u - 1] > 0) != uval]:
                del candidates[u]

    def _solve(self, assumptions: list[int]) -> list[int] | None:
        self.sat_calls += 1
        if not self.solver.solve(assumptions=assumptions):
            if not assumptions:
                raise Inconsistent("observations admit no deal")
            return None
        model: list[int] = self.solver.get_model()
        self._models.append(model)
        del self._models[:-MODEL_POOL]
        return model

    # answers ---------------------------------------------------------------------------
    def status(self, card: int, holder: int) -> bool | None:
        """True / False when entailed, None when still open."""
        return self.value.get(self.var(card, holder))

    def holder_of(self, card: int) -> int | None:
        return next((h for h in range(self.holders) if self.status(card, h) is True), None)

    def known_holders(self) -> dict[int, int]:
        """Every card whose holder is entailed (own hand included), card -> holder."""
        out = {}
        for c in range(self.deck.size):
            h = self.holder_of(c)
            if h is not None:
                out[c] = h
        return out

    def solution(self) -> Triple | None:
        cards = [
            next((c for c in cat if self.status(c, self.envelope)), None) for cat in self.deck.categories
        ]
        return None if None in cards else (cards[0], cards[1], cards[2])  # type: ignore[return-value]

    def candidates(self) -> tuple[tuple[int, ...], ...]:
        """Per category, the cards that may still be in the envelope."""
        return tuple(
            tuple(c for c in cat if self.status(c, self.envelope) is not False)
            for cat in self.deck.categories
        )

    def model(self, avoid: list[list[int]] | None = None) -> dict[int, int] | None:
        """One deal consistent with the observations (card -> holder), optionally meeting extra
        clauses (e.g. 'differ from the true deal'); None if there is none."""
        self._guards += 1
        act = self.pool.id(("model-guard", self._guards))
        for clause in avoid or []:
            self.solver.add_clause(clause + [-act])
        if not self.solver.solve(assumptions=[act]):
            self.solver.add_clause([-act])
            return None
        m = self.solver.get_model()
        self.solver.add_clause([-act])  # retire the guard: the extra clauses never bind again
        return {
            c: next(h for h in range(self.holders) if m[self.var(c, h) - 1] > 0)
            for c in range(self.deck.size)
        }

    def close(self) -> None:
        self.solver.delete()


def suggestion_clauses(oracle: ClueOracle, event: Suggestion) -> list[list[int]]:
    n, var = oracle.n, oracle.var
    clauses: list[list[int]] = []
    stop = event.disprover if event.disprover is not None else event.player
    seat = (event.player + 1) % n
    while seat != stop:
        clauses.extend([-var(c, seat)] for c in event.cards)
        seat = (seat + 1) % n
    if event.disprover is not None:
        if event.shown is not None:
            clauses.append([var(event.shown, event.disprover)])
        else:
            clauses.append([var(c, event.disprover) for c in event.cards])
    return clauses
