"""Misère Nim on piles {1,3,5,7} (OpenSpiel `nim`): whoever takes the last stone loses.

A second-player win under optimal play. Engine action = (take - 1) * piles + pile index.
"""

from __future__ import annotations

import re

import pyspiel

from ..errors import ParseError, UserError
from ..oracles.minimax import MinimaxTable
from .base import Formulation, GameDef, register_game

PILES = (1, 3, 5, 7)


def decode(action: int, piles: int = len(PILES)) -> tuple[int, int]:
    """Engine action -> (pile index 0-based, stones taken)."""
    return action % piles, action // piles + 1


def encode(pile: int, take: int, piles: int = len(PILES)) -> int:
    return (take - 1) * piles + pile


def pile_sizes(state: pyspiel.State) -> list[int]:
    """Current pile sizes, parsed from the engine's text '(p): a b c d'."""
    return [int(x) for x in str(state).split(":", 1)[1].split()]


def _parse_moves(game: GameDef, text: str) -> list[int]:
    """Moves as PILE:TAKE (piles 1-4), space or comma separated, e.g. '4:7 3:1'."""
    out = []
    for tok in text.replace(",", " ").split():
        m = re.fullmatch(r"(\d+)[:/-](\d+)", tok.strip())
        if not m or not 1 <= int(m.group(1)) <= len(PILES) or int(m.group(2)) < 1:
            raise UserError(f"bad Nim move '{tok}'; accepted: PILE:TAKE with pile 1-{len(PILES)}, e.g. 4:7")
        out.append(encode(int(m.group(1)) - 1, int(m.group(2))))
    return out


GAME = register_game(
    GameDef(
        name="nim",
        title="Misère Nim {1,3,5,7}",
        openspiel_name="nim",
        openspiel_params={"pile_sizes": ";".join(map(str, PILES)), "is_misere": True},
        summary="Piles of 1, 3, 5, 7; take any number from one pile; taking the last stone loses.",
        recognition=(r"\bnim\b", r"nim[\s-]*sum", r"\bmis[eè]re\b", r"\bmarienbad\b"),
        oracle_factory=lambda: MinimaxTable.load_or_build(GAME.engine, "nim"),
        parse_moves=_parse_moves,
    )
)


@GAME.add_formulation
class Standard(Formulation):
    name = "standard"

    def rules(self) -> str:
        return (
            "We are playing misère Nim. There are four piles of stones, numbered 1 to 4, starting "
            "with 1, 3, 5 and 7 stones. Two players alternate turns. On your turn you must take "
            "one or more stones from a single pile (up to all of it). The player who takes the "
            "last stone overall loses. A move is written 'pile P, take N'."
        )

    def render_state(self, state: pyspiel.State) -> str:
        sizes = pile_sizes(state)
        lines = [f"Pile {i + 1}: {n} stone{'s' if n != 1 else ''}" for i, n in enumerate(sizes)]
        return "\n".join(lines)

    def action_label(self, state: pyspiel.State, action: int) -> str:
        pile, take = decode(action)
        return f"pile {pile + 1}, take {take}"

    def parse_action(self, state: pyspiel.State, text: str) -> int:
        m = re.search(r"pile\s*(\d+)\D+?(\d+)", text, re.IGNORECASE)
        if m:
            text = f"pile {int(m.group(1))}, take {int(m.group(2))}"
        try:
            return super().parse_action(state, text)
        except ParseError as err:
            if m and getattr(err, "kind", None) is None:
                err.kind = "illegal"  # type: ignore[attr-defined]
            raise
