"""Clue's bots: `clue-random[:accuse=P]`, `clue-matrix`, `clue-oracle`; `clue-llm:model=M,...` is
in `llm.py`. Importing the package registers all four in the one player registry (`plylab.players.PLAYERS`).
Every player is built per game and seat, so no state leaks between games.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import Field

from ..players.base import register_player
from ..specs import Params
from .base import ClueDecision, CluePlayer, clue_player_class, make_clue_player, sees_matrix
from .cards import Triple
from .matrix import PossibilityMatrix
from .oracle import ClueOracle
from .prompts import Deductions
from .view import ClueView


def _pick(rng: random.Random, candidates: tuple[tuple[int, ...], ...]) -> Triple:
    s, w, r = (rng.choice(cands) for cands in candidates)
    return (s, w, r)


def _belief(candidates: tuple[tuple[int, ...], ...]) -> dict[int, int | None]:
    return {i: (cands[0] if len(cands) == 1 else None) for i, cands in enumerate(candidates)}


class RandomOptions(Params):
    accuse: float = Field(0.0, ge=0.0, le=1.0, description="chance per turn to accuse a random triple")


@register_player
class RandomPlayer(CluePlayer[RandomOptions]):
    """Suggests uniformly at random; states nothing; accuses at random only if asked to."""

    Options = RandomOptions
    summary = "random suggestions (and random accusations with probability `accuse`)"

    async def act(self, view: ClueView) -> ClueDecision:
        triple = self.rng.choice(view.deck.triples)
        if self.rng.random() < self.options.accuse:
            return ClueDecision("accuse", triple, Deductions(envelope=dict(enumerate(triple))))
        return ClueDecision("suggest", triple, Deductions())


@register_player
class MatrixPlayer(CluePlayer[Params]):
    """The rule-based matrix alone: suggests envelope candidates, accuses as soon as it is ready."""

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


@register_player
class OraclePlayer(CluePlayer[Params]):
    """Complete deduction: states only entailed facts, accuses the moment the solution is entailed."""

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


__all__ = [
    "ClueDecision",
    "CluePlayer",
    "MatrixPlayer",
    "OraclePlayer",
    "RandomPlayer",
    "clue_player_class",
    "make_clue_player",
    "sees_matrix",
]
