"""Misère Nim on piles {1,3,5,7} (OpenSpiel `nim`): whoever takes the last stone loses.

A second-player win under optimal play. Engine action = (take - 1) * piles + pile index.

Formulations: `standard`, and the paper's obfuscations (appendix B.2) `hidden` (dimming light
bulbs), `inverse` (filling piles up to targets) and `story` (characters running to safety). All
share one move shape, "thing i, amount n", so they differ only in words and pictures.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from typing import ClassVar

import pyspiel

from ..errors import ParseError, UserError
from ..oracles.minimax import MinimaxTable
from .base import GameDef, register_game
from .surface import FixedLabels, turn_line

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
        recognition=(
            r"\bnim\b",  # also Nim's, nim-sum, Nim-like
            r"\bnim(?:sums?|bers?)\b",  # nimsum, nimber
            r"\bmis[eè]re\b",
            r"\bmarienbad\b",
        ),
        oracle_factory=lambda: MinimaxTable.load_or_build(GAME.engine, "nim"),
        parse_moves=_parse_moves,
    )
)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class Piles(FixedLabels):
    """Shared by the Nim formulations: a move names one of four things and a positive amount."""

    move_format: ClassVar[str]  # label with {thing} and {amount}
    things: ClassVar[tuple[str, ...]] = ("1", "2", "3", "4")
    # Lenient reply form: groups 'thing' (a number or a name from `things`) and 'amount'.
    move_pattern: ClassVar[str]

    def label(self, action: int) -> str:
        pile, take = decode(action)
        return self.move_format.format(thing=self.things[pile], amount=take)

    def render_state(self, state: pyspiel.State) -> str:
        return "\n".join([*self.picture(pile_sizes(state)), turn_line(self, state)])

    @abstractmethod
    def picture(self, sizes: list[int]) -> list[str]:
        """The position's lines, given the engine's pile sizes."""

    def canonical(self, text: str) -> str:
        m = re.search(self.move_pattern, text, re.IGNORECASE)
        if m is None:
            return text
        names = [t.lower() for t in self.things]
        thing = m["thing"].lower()
        thing = self.things[names.index(thing)] if thing in names else str(int(thing))
        return self.move_format.format(thing=thing, amount=int(m["amount"]))

    def parse_action(self, state: pyspiel.State, text: str) -> int:
        try:
            return super().parse_action(state, text)
        except ParseError as err:
            if getattr(err, "kind", None) is None and re.search(self.move_pattern, text, re.IGNORECASE):
                err.kind = "illegal"  # type: ignore[attr-defined]  # move-shaped, yet impossible (take 9)
            raise


@GAME.add_formulation
class Standard(Piles):
    name = "standard"
    move_format = "pile {thing}, take {amount}"
    move_pattern = r"pile\s*(?P<thing>\d+)\D+?(?P<amount>\d+)"

    def rules(self) -> str:
        return (
            "We are playing misère Nim. There are four piles of stones, numbered 1 to 4, starting "
            "with 1, 3, 5 and 7 stones. Two players alternate turns; Player 1 goes first. On your "
            "turn you must take one or more stones from a single pile (up to all of it). The player "
            "who takes the last stone overall loses. A move is written 'pile P, take N'."
        )

    def picture(self, sizes: list[int]) -> list[str]:
        return [f"Pile {i + 1}: {plural(n, 'stone')}" for i, n in enumerate(sizes)]


@GAME.add_formulation
class Hidden(Piles):
    """The paper's Hid: piles are light bulbs, stones are brightness levels."""

    name = "hidden"
    move_format = "bulb {thing}, dim {amount}"
    move_pattern = r"bulb\s*(?P<thing>\d+)\D+?(?P<amount>\d+)"

    def rules(self) -> str:
        return (
            "There are four light bulbs, numbered 1 to 4, with brightness levels 1, 3, 5 and 7 at "
            "the start. A bulb whose brightness is 0 is off. Two players alternate turns; Player 1 "
            "goes first. On your turn you must dim exactly one bulb that is still on, by one or more "
            "levels, down to 0 at most (dimming it by its whole brightness switches it off). Bulbs "
            "never get brighter. The player who switches off the last light that was still on, so "
            "that every bulb is off, loses; the other player wins. A move is written 'bulb B, dim N', "
            "meaning bulb B loses N levels of brightness."
        )

    def picture(self, sizes: list[int]) -> list[str]:
        return [f"Bulb {i + 1}: brightness {n}{' (on)' if n else ' (off)'}" for i, n in enumerate(sizes)]


@GAME.add_formulation
class Inverse(Piles):
    """The paper's Inv: piles fill up from empty towards 1, 3, 5, 7; completing them all loses."""

    name = "inverse"
    move_format = "pile {thing}, add {amount}"
    move_pattern = r"pile\s*(?P<thing>\d+)\D+?(?P<amount>\d+)"

    def rules(self) -> str:
        return (
            "There are four piles, numbered 1 to 4, which start empty. Each pile has a fixed target "
            "size: 1 stone for pile 1, 3 for pile 2, 5 for pile 3 and 7 for pile 4. Two players "
            "alternate turns; Player 1 goes first. On your turn you must add one or more stones to a "
            "single pile that is below its target, without going over that target (you may fill it "
            "exactly). Stones are never removed. The player whose move completes the whole target "
            "configuration, so that every pile has reached its target, loses; the other player "
            "wins. A move is written 'pile P, add N'."
        )

    def picture(self, sizes: list[int]) -> list[str]:
        return [
            f"Pile {i + 1}: {t - n} of {plural(t, 'stone')}{' (full)' if n == 0 else ''}"
            for i, (t, n) in enumerate(zip(PILES, sizes))
        ]


@GAME.add_formulation
class Story(Piles):
    """The paper's Story: four characters in four rows run right, away from a danger, to safety."""

    name = "story"
    things = ("Ada", "Bram", "Cleo", "Dax")
    move_format = "move {thing} {amount}"
    move_pattern = r"\b(?P<thing>ada|bram|cleo|dax)\b\D*?(?P<amount>\d+)"
    width = max(PILES)  # columns 1..width; safety is just past the last one

    def rules(self) -> str:
        names = ", ".join(self.things[:-1]) + f" and {self.things[-1]}"
        starts = ", ".join(str(self.width + 1 - n) for n in PILES[:-1]) + f" and {self.width + 1 - PILES[-1]}"
        w = self.width
        return (
            f"A danger is coming from the left. Four characters, {names}, flee from it, each in their "
            f"own row of a track with columns 1 to {w} (left to right). Just past column {w} lies "
            f"safety. They start in columns {starts} respectively. Two players take turns helping "
            "them; Player 1 goes first. On your turn you must move exactly one character who is not "
            "yet safe one or more cells to the right. A character in column c can move at most "
            f"{w + 1} - c cells: moving exactly {w + 1} - c cells brings them into safety, where "
            "they stay for the rest of the game. Characters never move left, and the danger is only "
            "the story: it never moves and never catches anyone. The player who brings the last "
            "character into safety, so that all four are safe, loses; the other player wins. A move "
            f"is written 'move NAME N', for example 'move {self.things[2]} 2' moves "
            f"{self.things[2]} two cells to the right."
        )

    def picture(self, sizes: list[int]) -> list[str]:
        pad = max(map(len, self.things)) + 1
        header = " " * pad + " ".join(str(c) for c in range(1, self.width + 1)) + " | safety"
        lines = [header]
        for name, left in zip(self.things, sizes):
            cells = ["."] * self.width
            if left:
                cells[self.width - left] = name[0]
            lines.append(f"{name.ljust(pad)}{' '.join(cells)} | {'' if left else name + ' (safe)'}".rstrip())
        return lines
