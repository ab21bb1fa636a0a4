"""How plylab writes a count of things: "1 game", "2 games", "1 ply", "3 plies" (issue 30 point 7).

One helper, so that no message says "1 games"; numbers get thousands separators as elsewhere.
"""

from __future__ import annotations

_IRREGULAR = {"ply": "plies", "reply": "replies", "entry": "entries", "strategy": "strategies"}


def plural_of(noun: str) -> str:
    """The plural of a noun plylab counts (games, moves, calls, plies, runs, matchups)."""
    return _IRREGULAR.get(noun, noun + "s")


def count(n: float, noun: str) -> str:
    """`n` and `noun`, singular for exactly one: `count(1, "game")` is "1 game"."""
    shown = f"{n:,}" if isinstance(n, int) else f"{round(n):,}"
    return f"{shown} {noun if shown == '1' else plural_of(noun)}"
