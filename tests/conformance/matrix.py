"""The conformance matrix, generated from the registries: every game with a ground truth, every
formulation it lists, the classic players its truth names (and a scripted model for the LLM path),
played once into one store per game that every surface then reads. A game or truth is in the matrix
by being registered; nothing here names a game.

The fast lane (`make check`) takes the first registered game of each kind of truth; `make test`
takes them all (the rest are marked slow).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from plylab.games import GAMES, get_game
from plylab.games.base import GameDef

# Formulations that show the game as it is (the engine's surface, its structs, its hidden-board
# variant); every other one is a disguise, whose listing and words must carry nothing it hides.
PLAIN = frozenset({"standard", "struct", "hidden"})
ENGINE_NODES = 200  # a chess-family engine's nodes, as player and as grader: short and reproducible


@dataclass(frozen=True)
class Case:
    """One game of the matrix: how its classic seats are filled and how its moves are graded."""

    game: str
    kind: str
    formulations: tuple[str, ...]
    opponent: str  # the truth's own player: optimal, equilibrium, or the engine
    score: str  # `--score`: the engine's limit ('on' for a table or an equilibrium)

    @property
    def disguises(self) -> tuple[str, ...]:
        return tuple(f for f in self.formulations if f not in PLAIN)


def _case(g: GameDef) -> Case:
    truth = g.ground_truth
    assert truth is not None
    if truth.kind == "exact":
        opponent, score = "optimal", "on"
    elif truth.kind == "equilibrium":
        opponent, score = "equilibrium", "on"
    elif truth.chess:  # a UCI engine: it plays under its own name and grades at the same limit
        opponent, score = f"{truth.name}:nodes={ENGINE_NODES}", f"nodes={ENGINE_NODES}"
    else:  # an engine grading by levels (gnubg): its nets alone
        opponent, score = truth.name, "plies=0"
    return Case(g.name, truth.kind, tuple(g.formulations.names()), opponent, score)


def cases() -> list[Case]:
    """Every registered game with a ground truth, in the registry's order."""
    out = []
    for name in GAMES.names():
        g = get_game(name)
        if g.ground_truth is not None:
            out.append(_case(g))
    return out


CASES = cases()
FAST = {k: next(c.game for c in CASES if c.kind == k) for k in dict.fromkeys(c.kind for c in CASES)}


def params(items: list[Case] | None = None) -> list[object]:
    """The cases as pytest parameters: the fast lane's one per kind, every other one slow."""
    return [
        pytest.param(c, id=c.game, marks=() if FAST[c.kind] == c.game else (pytest.mark.slow,))
        for c in (items if items is not None else CASES)
    ]
