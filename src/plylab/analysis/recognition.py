"""Does a reply or reasoning trace name the underlying game? (the paper's recognition rate).

A game's `recognition` patterns are matched case-insensitively (a pattern may opt out locally
with `(?-i:...)`). Naming is what counts: describing a rule ("three in a row") is not recognition.
Rates built on this are lower bounds, as in the paper: a model may recognize without saying so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from ..games import GameDef


@lru_cache(maxsize=64)
def recognizer(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """One compiled alternation of the patterns; None when there are none (nothing to recognize)."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


def names_game(game: GameDef, text: str | None, patterns: Iterable[str] | None = None) -> bool:
    """True when `text` names `game`; `patterns` overrides the game's own (configurable per run)."""
    pattern = recognizer(tuple(game.recognition if patterns is None else patterns))
    return bool(text and pattern and pattern.search(text))
