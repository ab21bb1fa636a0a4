"""`plylab report --table ratings`: the site's per-game Bradley-Terry ratings as a report table.

One row per game and player (analysis/ratings.py): its rating and interval where the games
identify it, its rank where the games decide its order against every other player, and for the
rest what the games do decide. Each game's note says where its scale is anchored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..jsontypes import JSONObject
from ..render.table import Table
from .report_source import ReportSource

if TYPE_CHECKING:
    from .ratings import Rating

ABOUT = "Bradley-Terry ratings per game: rating and 95% interval where the games identify them, rank"
COLUMNS = [
    "game",
    "rank",
    "player",
    "rating",
    "95% interval",
    "games",
    "W",
    "D",
    "L",
    "identified",
    "unrated: what the games decide",
]


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.0f}"


def ratings_table(source: ReportSource) -> Table:
    """Ratings of every two-player run's games in `source` (Clue's runs are rated elsewhere)."""
    from .metrics import CLUE_KIND
    from .ratings import anchor_note, rating_results, ratings_by_game  # scipy: only when built

    run_ids = [r.id for r in source.store.runs(source.run) if r.kind != CLUE_KIND]
    by_game = ratings_by_game(rating_results(source.store, run_ids))
    rated = [(game, r) for game, ratings in by_game.items() for r in ratings]
    cells = [
        [
            game,
            "–" if r.rank is None else str(r.rank),
            r.player,
            _num(r.elo),
            "–" if r.low is None else f"[{_num(r.low)}, {_num(r.high)}]",
            str(r.games),
            str(r.wins),
            str(r.draws),
            str(r.losses),
            "yes" if r.identified else "no",
            r.note or "–",
        ]
        for game, r in rated
    ]
    notes = [f"{game}: {anchor_note(ratings)}." for game, ratings in by_game.items()]
    notes.append(
        "Rank: only where the games decide the player's order against every other player (– otherwise)."
    )
    anchors = {game: anchor_note(ratings) for game, ratings in by_game.items()}
    data = {"ratings": [_json(game, r) for game, r in rated], "anchors": anchors}
    return Table(COLUMNS, cells, notes=notes, data=data)


def _json(game: str, r: Rating) -> JSONObject:
    """A rating as the table's JSON writes it."""
    return {
        "game": game,
        "player": r.player,
        "rating": r.elo,
        "low": r.low,
        "high": r.high,
        "rank": r.rank,
        "identified": r.identified,
        "games": r.games,
        "wins": r.wins,
        "draws": r.draws,
        "losses": r.losses,
        "note": r.note,
    }
