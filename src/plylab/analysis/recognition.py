"""Does a reasoning trace (or a reply) name the underlying game? (the paper's recognition rate).

The paper counts recognition on reasoning-trace summaries (seed 003 l.114, Tables 5, 9, 11), so the
trace is the default source and the reply text a named alternative (`plylab report --table
recognition --on reply`). Every estimate says how many model moves had a trace at all.

A game's `recognition` patterns are matched case-insensitively (a pattern may opt out locally
with `(?-i:...)`), on the text with every Unicode dash, minus sign and soft hyphen read as `-`
(a model writes "tic‑tac‑toe" with U+2011 as often as with `-`). Naming is what counts: describing a rule ("three in a row") is not recognition.
Rates built on this are lower bounds, as in the paper: a model may recognize without saying so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from ..errors import UserError
from . import SCOPES
from .results import Recognition
from .stats import wilson

if TYPE_CHECKING:  # a report of classic games never loads OpenSpiel
    from ..games import GameDef


# Unicode's dash punctuation (category Pd), the minus sign and the soft hyphen: each is `-` to a
# pattern (tests/games/test_recognition.py checks every Pd character is here).
DASHES = str.maketrans(
    dict.fromkeys(
        "\u058a\u05be\u1400\u1806\u2010\u2011\u2012\u2013\u2014\u2015\u2e17\u2e1a\u2e3a\u2e3b"
        "\u2e40\u2e5d\u301c\u3030\u30a0\ufe31\ufe32\ufe58\ufe63\uff0d\U00010ead\u2212\u00ad",
        "-",
    )
)


def plain_dashes(text: str) -> str:
    """`text` with every Unicode dash written `-`, as the patterns spell them."""
    return text.translate(DASHES)


def mentions(pattern: re.Pattern[str], text: str) -> bool:
    """Does `text` match `pattern`, its dashes read as `-`?"""
    return bool(pattern.search(plain_dashes(text)))


@lru_cache(maxsize=64)
def recognizer(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """One compiled alternation of the patterns; None when there are none (nothing to recognize)."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


def patterns_for(game: GameDef, scope: str = "names") -> tuple[str, ...]:
    """The recognition patterns of `game` under `scope` (names, or names plus the wider set)."""
    if scope not in SCOPES:
        raise UserError(f"unknown recognition scope '{scope}'; accepted: {', '.join(SCOPES)}")
    return tuple(game.recognition) + (tuple(game.recognition_wide) if scope == "wide" else ())


def names_game(
    game: GameDef, text: str | None, patterns: Iterable[str] | None = None, scope: str = "names"
) -> bool:
    """True when `text` names `game`; `patterns` overrides the game's own (configurable per run)."""
    pattern = recognizer(patterns_for(game, scope) if patterns is None else tuple(patterns))
    return bool(text and pattern and mentions(pattern, text))


# What recognition is counted on: the reasoning trace (the paper's, seed 003 l.114: "reasoning-trace
# summaries") or, as a named alternative, the reply text.
SOURCES = ("trace", "reply")


@dataclass
class Tally:
    """Recognition counts for one matchup: model moves, moves with a trace, and hits on each source.

    A move with no trace cannot show recognition on traces: it is left out of the trace rate's
    denominator, and a cell with no traces at all has no rate (missing, never zero).
    """

    moves: int = 0
    traced: int = 0
    on_trace: int = 0
    replied: int = 0
    on_reply: int = 0

    def add(self, pattern: re.Pattern[str] | None, reasoning: str | None, reply: str | None) -> None:
        if pattern is None:
            return
        self.moves += 1
        if reasoning and reasoning.strip():
            self.traced += 1
            self.on_trace += mentions(pattern, reasoning)
        if reply and reply.strip():
            self.replied += 1
            self.on_reply += mentions(pattern, reply)

    def estimate(self, on: str = "trace", scope: str = "names") -> Recognition:
        """The Wilson estimate on `on`, with what it rests on (`moves`, `traced`, `n` texts read)
        and the patterns' `scope`."""
        if on not in SOURCES:
            raise UserError(f"unknown recognition source '{on}'; accepted: {', '.join(SOURCES)}")
        hits, n = (self.on_trace, self.traced) if on == "trace" else (self.on_reply, self.replied)
        w = wilson(hits, n)
        return Recognition(w.rate, w.low, w.high, w.n, on, self.moves, self.traced, scope)
