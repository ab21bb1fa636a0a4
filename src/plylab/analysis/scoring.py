"""The rules a game's results were counted by, where they are not OpenSpiel's own count.

A finished Go game is counted by GNU Go (`final_score`: Chinese area rules, dead stones removed by GNU
Go), or, without GNU Go, by OpenSpiel's naive area count (every stone on the board alive); the session
stores which in the game's `extra` (`scoring`), and the report names each set of rules under its
matchups, so a reader knows what a Go win means.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..harness.store import Store


def scoring_rules(store: Store, run: str | None = None) -> list[str]:
    """Each set of rules the run's games were counted by, with the games counted so (one line each):
    "go:board_size=9: 20 games counted by GNU Go 3.8's final_score: ..."; [] where every game's
    result is OpenSpiel's own."""
    ids = [r.id for r in store.runs(run)]
    counted: dict[tuple[str, str], int] = {}
    for g in store.games(ids):
        rules = json.loads(g.extra).get("scoring") if g.extra else None
        if isinstance(rules, str):
            general = re.sub(r": [BW0][+.0-9]*$", "", rules)  # the rules, not this game's score
            counted[(g.game, general)] = counted.get((g.game, general), 0) + 1
    return [
        f"{game}: {n} game{'s' if n != 1 else ''} counted by {rules}"
        for (game, rules), n in sorted(counted.items())
    ]
