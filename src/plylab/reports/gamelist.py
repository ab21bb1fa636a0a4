"""A run's game list, filterable and searchable without putting every game into one page.

The list pages stay as they are (GAMES_PER_PAGE rows each, readable without script). Beside each
page the site writes two small scripts: its games as compact rows, and the text of their model
calls (the end of each prompt, the start of each trace and reply). The filter bar loads the row
scripts only when a filter is set and the text scripts only when a search is typed (a page opened
from disk may not fetch JSON, but it may load a script), so a site's size stays proportional to its
pages and a page loads nothing it does not show.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields

from ..harness.rows import MatchupCount
from ..harness.store import Store
from ..jsontypes import JSONValue
from ..players.canonical import canonical_spec
from .data import GameSummary
from .seats import first_mover, is_chess, seat_names
from .truth import ground_truth

# What search sees of a game: the end of each prompt (the position and the question: the rules
# before them are the same in every game), the start of each trace and reply, 8,000 characters a
# game at most, so the text scripts stay a bounded multiple of the list.
PROMPT_TAIL, TEXT_CAP, GAME_CAP = 600, 1000, 8000
FIELDS = tuple(f.name for f in fields(GameSummary))  # a script row's values, in this order


def shard_name(run_id: int, kind: str, page: int) -> str:
    return f"run-{run_id}-{kind}-{page}.js"


def _script(call: str, page: int, payload: JSONValue) -> str:
    # `</` cannot close a script here: JSON escapes every `/` after `<`
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return f"plylab.{call}({page},{text});\n"


def games_script(page: int, listed: list[GameSummary]) -> str:
    return _script("gameRows", page, [g.values() for g in listed])


def text_script(page: int, store: Store, ids: list[int]) -> str:
    texts: JSONValue = {str(k): t for k, t in store.game_texts(ids, PROMPT_TAIL, TEXT_CAP, GAME_CAP).items()}
    return _script("gameTexts", page, texts)


@dataclass(frozen=True)
class Choices:
    """The values each filter of a run's game list offers."""

    games: list[str]
    formulations: list[str]
    players: list[str]
    opponents: list[str]
    failure_kinds: list[str]
    fields: tuple[str, ...]
    seats: list[tuple[str, str]]  # (value, label) of the seat filter, the first mover first
    chess: bool  # the run has engine-graded games: the list has their ACPL, accuracy, blunders


def seat_choices(games: list[str]) -> list[tuple[str, str]]:
    """The seat filter's options: numbered, or named where every game names its seats (chess)."""
    if games and all(is_chess(g) for g in games):
        names = seat_names(games[0], None)
        first = first_mover(games[0])
        return [(str(first + 1), f"{names[first]} (moves first)"), (str(2 - first), names[1 - first])]
    return [("1", "1 (moves first)" + (" · Black in chess" if any(map(is_chess, games)) else "")), ("2", "2")]


def choices(store: Store, run_id: int, matchups: list[MatchupCount]) -> Choices:
    """The values each filter offers for one run."""
    games = sorted({m.game for m in matchups})
    return Choices(
        games=games,
        formulations=sorted({m.formulation for m in matchups}),
        players=sorted({canonical_spec(m.player) for m in matchups}),
        opponents=sorted({canonical_spec(m.opponent) for m in matchups}),
        failure_kinds=store.failure_kinds(run_id),
        fields=FIELDS,
        seats=seat_choices(games),
        chess=any(ground_truth(g) == "engine" and is_chess(g) for g in games),  # not gnubg's backgammon
    )
