"""The referee: judges every seat against ground truth while a game is played.

It keeps, per seat, a SAT oracle and a possibility matrix fed with that seat's view, so after
each turn it can say how many holdings the seat could know (the oracle's knowledge curve),
whether the solution is entailed for it, and whether its matrix is ready to accuse. It also
classifies each stated deduction when it is made: `incorrect` (false), `entailed` (true and
entailed by the seat's observations) or `unsupported` (true, but not yet entailed: a guess).
Claims about the seat's own cards are not deductions and are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass

from .engine import ClueState
from .matrix import PossibilityMatrix
from .oracle import ClueOracle
from .prompts import Deductions


@dataclass(frozen=True)
class Snapshot:
    """A seat's ground-truth standing after a turn."""

    turn: int
    seat: int
    oracle_known: int  # non-envelope cards whose holder is entailed (own hand included)
    oracle_solved: bool  # the whole envelope is entailed
    matrix_ready: bool  # the seat's possibility matrix flags 'ready to accuse'


class Referee:
    def __init__(self, state: ClueState) -> None:
        self.state = state
        views = [state.view(seat) for seat in range(state.n)]
        self.oracles = [ClueOracle.for_view(v) for v in views]
        self.matrices = [PossibilityMatrix.for_view(v) for v in views]

    def judge(self, seat: int, deductions: Deductions | None) -> list[tuple[int, int, str]]:
        """(card, holder, verdict) for each claimed holding outside the seat's own hand."""
        if deductions is None:
            return []
        hand = set(self.state.hands[seat])
        out = []
        for card, holder in deductions.known.items():
            if card in hand:
                continue
            if self.state.holder[card] != holder:
                verdict = "incorrect"
            elif self.oracles[seat].status(card, holder):
                verdict = "entailed"
            else:
                verdict = "unsupported"
            out.append((card, holder, verdict))
        return out

    def after_turn(self, turn: int) -> list[Snapshot]:
        """Feed every seat the turn's events; one snapshot per seat."""
        snaps = []
        for seat, (oracle, matrix) in enumerate(zip(self.oracles, self.matrices)):
            view = self.state.view(seat)
            oracle.update(view)
            matrix.update(view)
            known = sum(1 for h in oracle.known_holders().values() if h != oracle.envelope)
            snaps.append(Snapshot(turn, seat, known, oracle.solution() is not None, matrix.ready))
        return snaps

    def close(self) -> None:
        for oracle in self.oracles:
            oracle.close()
