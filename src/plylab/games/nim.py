"""Misère Nim on piles {1,3,5,7} (OpenSpiel `nim`): whoever takes the last stone loses.

A second-player win under optimal play. Engine action = (take - 1) * piles + pile index.
Generated instances: any pile set (`nim:pile_sizes=2;4;6`) and normal play (`is_misere=false`);
every formulation reads the piles from the game, and the oracle is the generic table.

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
from .base import GameDef, GroundTruth, register_game
from .generic import derived_truth
from .surface import FixedLabels, turn_line

PILES = (1, 3, 5, 7)
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def piles_of(game: GameDef) -> tuple[int, ...]:
    """The game's starting pile sizes (its `pile_sizes` parameter)."""
    text = str(game.openspiel_params.get("pile_sizes", ";".join(map(str, PILES))))
    return tuple(int(x) for x in text.split(";") if x.strip())


def check_piles(game: GameDef) -> None:
    """No pile is negative: OpenSpiel takes `-1;2` (which `solve` then answered) and a game of it
    reaches a position with no legal move; text that is no number is OpenSpiel's to refuse."""
    text = str(game.openspiel_params.get("pile_sizes", ""))
    if any(re.fullmatch(r"\s*-\s*\d+\s*", x) for x in text.split(";")):
        raise UserError(
            f"game 'nim:pile_sizes={text}': a pile size may not be negative; accepted: whole numbers "
            "separated by ';' (e.g. nim:pile_sizes=2;4;6)"
        )


def misere(game: GameDef) -> bool:
    return bool(game.openspiel_params.get("is_misere", True))


def count_word(n: int) -> str:
    return NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else str(n)


def listing(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


def title_for(game: GameDef) -> str:
    kind = "Misère Nim" if misere(game) else "Nim"
    return f"{kind} {{{','.join(map(str, piles_of(game)))}}}"


def decode(action: int, piles: int = len(PILES)) -> tuple[int, int]:
    """Engine action -> (pile index 0-based, stones taken)."""
    return action % piles, action // piles + 1


def _pile_take(action: int, piles: int) -> tuple[int, int]:
    """An engine action as Nim's notation: (pile 1-based, stones taken)."""
    pile, take = decode(action, piles)
    return pile + 1, take


def encode(pile: int, take: int, piles: int = len(PILES)) -> int:
    return (take - 1) * piles + pile


def pile_sizes(state: pyspiel.State) -> list[int]:
    """Current pile sizes, parsed from the engine's text '(p): a b c d'."""
    return [int(x) for x in str(state).split(":", 1)[1].split()]


def _parse_moves(game: GameDef, text: str) -> list[int]:
    """Moves as PILE:TAKE (piles from 1), space or comma separated, e.g. '4:7 3:1'."""
    out = []
    n = len(piles_of(game))
    for tok in text.replace(",", " ").split():
        m = re.fullmatch(r"(\d+)[:/-](\d+)", tok.strip())
        if not m or not 1 <= int(m.group(1)) <= n or int(m.group(2)) < 1:
            raise UserError(f"bad Nim move '{tok}'; accepted: PILE:TAKE with pile 1-{n}, e.g. {n}:1")
        out.append(encode(int(m.group(1)) - 1, int(m.group(2)), n))
    return out


GAME = register_game(
    GameDef(
        name="nim",
        title="Misère Nim {1,3,5,7}",
        openspiel_name="nim",
        openspiel_params={"pile_sizes": ";".join(map(str, PILES)), "is_misere": True},
        summary="Piles of 1, 3, 5, 7; take any number from one pile; taking the last stone loses.",
        recognition=(r"\bnim\b",),  # Nim, the game of Nim (also Nim's, nim-sum, Nim-like)
        recognition_wide=(
            r"\bnim(?:sums?|bers?)\b",  # nimsum, nimber
            r"\bmis[eè]re\b",
            r"\bmarienbad\b",
        ),
        ground_truth=GroundTruth(
            "exact", "minimax table", lambda game: MinimaxTable.load_or_build(game.engine, "nim")
        ),
        parse_moves=_parse_moves,
        move_name=lambda game, action: "{}:{}".format(*_pile_take(action, len(piles_of(game)))),
        derived_truth=derived_truth,
        title_for=title_for,
        check_params=check_piles,
    )
)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class Piles(FixedLabels):
    """Shared by the Nim formulations: a move names one of the piles and a positive amount."""

    order_actions = False  # listed in the engine's order (amount, then pile), as plybench lists Nim

    move_format: ClassVar[str]  # label with {thing} and {amount}
    names: ClassVar[tuple[str, ...] | None] = None  # names of the things; None = numbers from 1
    # Lenient reply form: groups 'thing' (a number or a name from `things`) and 'amount'.
    move_pattern: ClassVar[str]

    @property
    def piles(self) -> tuple[int, ...]:
        return piles_of(self.game)

    @property
    def things(self) -> tuple[str, ...]:
        n = len(self.piles)
        if self.names is not None and n <= len(self.names):
            return self.names[:n]
        return tuple(str(i + 1) for i in range(n))

    @property
    def count(self) -> str:
        """'four piles' etc.: how many things, as a word."""
        return count_word(len(self.piles))

    @property
    def sizes_text(self) -> str:
        return listing([str(p) for p in self.piles])

    @property
    def last_loses(self) -> bool:
        return misere(self.game)

    def label(self, action: int) -> str:
        pile, take = decode(action, len(self.piles))
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
            if err.kind == "unparseable" and re.search(self.move_pattern, text, re.IGNORECASE):
                raise ParseError(str(err), kind="illegal") from None  # move-shaped, yet impossible (take 9)
            raise


@GAME.add_formulation
class Standard(Piles):
    name = "standard"
    move_format = "pile {thing}, take {amount}"
    move_pattern = r"pile\s*(?P<thing>\d+)\D+?(?P<amount>\d+)"

    def rules(self) -> str:
        n = len(self.piles)
        return (
            f"We are playing {'misère ' if self.last_loses else ''}Nim. There are {self.count} piles of "
            f"stones, numbered 1 to {n}, starting with {self.sizes_text} stones. Two players alternate "
            "turns; Player 1 goes first. On your turn you must take one or more stones from a single "
            "pile (up to all of it). The player who takes the last stone overall "
            f"{'loses' if self.last_loses else 'wins'}. A move is written 'pile P, take N'."
        )

    def picture(self, sizes: list[int]) -> list[str]:
        return [f"Pile {i + 1}: {plural(n, 'stone')}" for i, n in enumerate(sizes)]


@GAME.add_formulation
class Hidden(Piles):
    """The paper's Hid: piles are light bulbs, stones are brightness levels."""

    name = "hidden"
    move_format = "bulb {thing}, dim {amount}"

    def title(self) -> str:
        return "Dimming the lights"

    move_pattern = r"bulb\s*(?P<thing>\d+)\D+?(?P<amount>\d+)"

    def rules(self) -> str:
        n = len(self.piles)
        return (
            f"There are {self.count} light bulbs, numbered 1 to {n}, with brightness levels "
            f"{self.sizes_text} at the start. A bulb whose brightness is 0 is off. Two players alternate "
            "turns; Player 1 goes first. On your turn you must dim exactly one bulb that is still on, "
            "by one or more levels, down to 0 at most (dimming it by its whole brightness switches it "
            "off). Bulbs never get brighter. The player who switches off the last light that was still "
            f"on, so that every bulb is off, {'loses; the other player wins' if self.last_loses else 'wins'}. "
            "A move is written 'bulb B, dim N', meaning bulb B loses N levels of brightness."
        )

    def picture(self, sizes: list[int]) -> list[str]:
        return [f"Bulb {i + 1}: brightness {n}{' (on)' if n else ' (off)'}" for i, n in enumerate(sizes)]


@GAME.add_formulation
class Inverse(Piles):
    """The paper's Inv: piles fill up from empty towards 1, 3, 5, 7; completing them all loses."""

    name = "inverse"
    move_format = "pile {thing}, add {amount}"

    def title(self) -> str:
        return "Filling the piles"

    move_pattern = r"pile\s*(?P<thing>\d+)\D+?(?P<amount>\d+)"

    def rules(self) -> str:
        n = len(self.piles)
        targets = [f"{plural(t, 'stone')} for pile {i + 1}" for i, t in enumerate(self.piles)]
        targets[1:] = [t.replace(" stones", "").replace(" stone", "") for t in targets[1:]]
        return (
            f"There are {self.count} piles, numbered 1 to {n}, which start empty. Each pile has a fixed "
            f"target size: {listing(targets)}. Two players alternate turns; Player 1 goes first. On your "
            "turn you must add one or more stones to a single pile that is below its target, without "
            "going over that target (you may fill it exactly). Stones are never removed. The player "
            "whose move completes the whole target configuration, so that every pile has reached its "
            f"target, {'loses; the other player wins' if self.last_loses else 'wins'}. A move is written "
            "'pile P, add N'."
        )

    def picture(self, sizes: list[int]) -> list[str]:
        return [
            f"Pile {i + 1}: {t - n} of {plural(t, 'stone')}{' (full)' if n == 0 else ''}"
            for i, (t, n) in enumerate(zip(self.piles, sizes))
        ]


@GAME.add_formulation
class Story(Piles):
    """The paper's Story: four characters in four rows flee a danger advancing from the left (003 l.286)."""

    name = "story"
    names = ("Ada", "Bram", "Cleo", "Dax", "Eli", "Fern", "Gus", "Hana", "Ivo", "Juno", "Kai", "Lena")
    move_format = "move {thing} {amount}"

    def title(self) -> str:
        return "Fleeing the danger"

    @property
    def move_pattern(self) -> str:  # type: ignore[override]
        return rf"\b(?P<thing>{'|'.join(t.lower() for t in self.things)})\b\D*?(?P<amount>\d+)"

    @property
    def width(self) -> int:
        """Columns 1..width; safety is just past the last one."""
        return max(self.piles)

    def rules(self) -> str:
        names = listing(list(self.things))
        starts = listing([str(self.width + 1 - n) for n in self.piles])
        w = self.width
        example = self.things[min(2, len(self.things) - 1)]
        return (
            f"A danger is advancing from the left. {self.count.capitalize()} characters, {names}, flee from it, each in their "
            f"own row of a track with columns 1 to {w} (left to right). Just past column {w} lies "
            f"safety. They start in columns {starts} respectively. Two players take turns helping "
            "them; Player 1 goes first. On your turn you must move exactly one character who is not "
            "yet safe one or more cells to the right. A character in column c can move at most "
            f"{w + 1} - c cells: moving exactly {w + 1} - c cells brings them into safety, where "
            "they stay for the rest of the game. Characters never move left; the danger advances behind "
            "them as they go. The player who brings the last "
            f"character into safety, so that all {self.count} are safe, "
            f"{'loses; the other player wins' if self.last_loses else 'wins'}. A move "
            f"is written 'move NAME N', for example 'move {example} 2' moves "
            f"{example} two cells to the right."
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
