"""A page per matchup: its numbers, its optimality by move number, and its worst positions.

The worst positions are the states where the matchup's player most often chose a non-optimal
move, counted by the store's SQL over every stored game of the matchup and drawn with their legal moves'
exact values and the move most often played wrongly there. Everything is aggregated by SQLite,
so a page costs the same for 10 games as for 10,000.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from markupsafe import Markup, escape

from ..analysis.results import MatchupRow
from ..errors import UserError
from ..games import get_game
from ..harness.rows import Matchup, MatchupCount
from ..harness.store import Store
from .boards import Marks, draw

WORST = 6  # positions drawn per matchup


SpellingKey = tuple[int, str, str, str, str]  # (run id, game, formulation, player, opponent)


@dataclass(frozen=True)
class WorstPosition:
    """A position where the player most often chose a non-optimal move, as its page draws it."""

    svg: Markup | None
    text: str | None
    wrong: int
    seen: int
    move: str | None  # the move most often played wrongly there
    move_n: int


@dataclass(frozen=True)
class MatchupPage:
    """What a matchup's page shows beside its numbers: optimality by move number, worst positions."""

    chart: Markup
    worst: list[WorstPosition]


def page_path(row: MatchupRow) -> str:
    """Where a matchup's page lives (stable: named by a hash of the matchup's identity)."""
    key = json.dumps(list(row.key))
    return f"matchups/m-{hashlib.sha1(key.encode()).hexdigest()[:12]}.html"


def _matchup(run_id: int, row: MatchupRow, spellings: tuple[list[str], list[str]]) -> Matchup:
    return Matchup(
        run_id=run_id,
        game=row.game,
        formulation=row.formulation,
        players=tuple(spellings[0]),
        opponents=tuple(spellings[1]),
    )


def by_move_chart(points: list[tuple[int, int, float]]) -> Markup:
    """Optimality per move number of the player as bars with their n; a sentence when nothing was scored."""
    if not points:
        return Markup(
            '<p class="empty">No scored moves: nothing to plot (no oracle, or every position was all-equal).</p>'
        )
    width, height, left, bottom, top = 720, 190, 44, 34, 12
    bar = (width - left - 10) / len(points)
    body = []
    for v in (0, 0.5, 1):
        y = top + (1 - v) * (height - top - bottom)
        body.append(f'<line x1="{left}" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#d0d7de"/>')
        body.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" fill="#636c76">{v:g}</text>'
        )
    for i, (k, n, ok) in enumerate(points):
        rate = ok / n
        h = rate * (height - top - bottom)
        x = left + i * bar
        body.append(
            f'<g class="bar"><title>move {k + 1}: {ok:.0f} of {n} optimal ({rate:.2f})</title>'
            f'<rect x="{x + bar * 0.15:.1f}" y="{height - bottom - h:.1f}" width="{bar * 0.7:.1f}" height="{h:.1f}" fill="#0969da"/>'
            f'<text x="{x + bar / 2:.1f}" y="{height - bottom + 13}" text-anchor="middle" font-size="11">{k + 1}</text>'
            f'<text x="{x + bar / 2:.1f}" y="{height - bottom + 26}" text-anchor="middle" font-size="9" fill="#636c76">n={n}</text></g>'
        )
    return Markup(
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="100%" role="img" data-bars="{len(points)}">'
        + "".join(body)
        + "</svg>"
    )


def matchup_page(
    store: Store, run_id: int, row: MatchupRow, spellings: tuple[list[str], list[str]]
) -> MatchupPage:
    """What a matchup's page shows, read from the store."""
    matchup = _matchup(run_id, row, spellings)
    points = [(p.k, p.n, p.ok) for p in store.optimality_by_move(matchup)]
    worst = []
    try:
        engine = get_game(row.game).engine
        f = get_game(row.game).formulation(row.formulation)
    except UserError:
        engine = f = None
    for r in store.worst_states(matchup, WORST):
        wrong = store.wrong_move(matchup, r.state)
        svg = text = None
        if engine is not None and f is not None:
            state = engine.deserialize_state(r.state)
            values = json.loads(r.values_json or "{}")
            scores = json.loads(r.scores_json or "{}")
            names = {1: "win", 0: "draw", -1: "loss"}
            marks = Marks(
                chosen=wrong.action if wrong else None,
                values={int(a): names[v] for a, v in values.items() if v in names},
                scores={int(a): s for a, s in scores.items() if s is not None},
            )
            svg = draw(row.game, state, marks)
            text = f.render_state(state)
        worst.append(
            WorstPosition(
                svg=Markup(svg) if svg else None,
                text=text,
                wrong=int(r.wrong),
                seen=r.seen,
                move=wrong.action_label if wrong else None,
                move_n=wrong.n if wrong else 0,
            )
        )
    return MatchupPage(by_move_chart(points), worst)


def spellings_of(
    matchups: Iterable[MatchupCount], canonical: Callable[[str], str]
) -> dict[SpellingKey, tuple[list[str], list[str]]]:
    """Per (run id, game, formulation, player, opponent) as reported: the stored spellings of its specs."""
    out: dict[SpellingKey, tuple[list[str], list[str]]] = {}
    for m in matchups:
        key = (m.run_id, m.game, m.formulation, canonical(m.player), canonical(m.opponent))
        players, opponents = out.setdefault(key, ([], []))
        if m.player not in players:
            players.append(m.player)
        if m.opponent not in opponents:
            opponents.append(m.opponent)
    return out


__all__ = ["by_move_chart", "escape", "matchup_page", "page_path", "spellings_of"]
