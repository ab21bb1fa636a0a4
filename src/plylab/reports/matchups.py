"""A page per matchup: its numbers, how well the player moved by move number, and its worst positions.

Where the game's ground truth is exact (reports/truth.py), the paper's measure: optimality by move
number, and the worst positions are the states where the player most often chose a non-optimal move,
drawn with their legal moves' exact values and the move most often played wrongly there. Where it is
an equilibrium or an engine, the graded scale (oracles.graded): the mean loss by move number, and the
worst positions are the decisions (an information set where the grade names one, else a state)
where the player lost the most, drawn with the costliest move played there and the best one.
Everything is aggregated by SQLite over every stored game of the matchup, so a page costs the same
for 10 games as for 10,000.
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
from ..games.boards import Marks, draw
from ..harness.rows import Matchup, MatchupCount, PlyLoss
from ..harness.store import Store
from ..oracles.graded import Grade
from .moves import named, plays
from .payload import TruthView
from .truth import ground_truth, view

WORST = 6  # positions drawn per matchup


SpellingKey = tuple[int, str, str, str, str]  # (run id, game, formulation, player, opponent)


@dataclass(frozen=True)
class WorstPosition:
    """A position where the player most often chose a non-optimal move, as its page draws it."""

    svg: Markup | None
    text: str | None
    wrong: int
    seen: int
    move: str | None  # the move most often played wrongly there (graded: the costliest one)
    move_n: int
    lost: float | None = None  # graded: the loss of every move played there, summed
    move_loss: float | None = None  # graded: the loss of one play of `move`
    best: str | None = None  # graded: the ground truth's best move there


@dataclass(frozen=True)
class MatchupPage:
    """What a matchup's page shows beside its numbers: optimality by move number, worst positions."""

    chart: Markup
    worst: list[WorstPosition]
    graded: bool = False  # the chart and the positions are on the graded scale (not exact optimality)
    unit: str = "expected score"  # the graded scale's unit, as the page names it
    truth: TruthView | None = None  # what grades the game, in its words; None: nothing (ungraded)
    ungraded: str = ""  # why nothing grades the game, as the game says it


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


UNITS = {"score": "expected score", "payoff": "expected payoff"}


def by_move_loss_chart(points: list[PlyLoss]) -> Markup:
    """The player's mean loss per move number as bars with their n and non-optimal count; a sentence
    when no move was graded."""
    if not points:
        return Markup('<p class="empty">No graded moves: nothing to plot (no ground truth graded them).</p>')
    width, height, left, bottom, top = 720, 190, 52, 34, 12
    bar = min(60.0, (width - left - 10) / len(points))
    means = [p.loss / p.n for p in points]
    peak = max(means) or 1.0
    body = []
    for v in (0, peak / 2, peak):
        y = top + (1 - v / peak) * (height - top - bottom)
        body.append(f'<line x1="{left}" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#d0d7de"/>')
        body.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" fill="#636c76">{v:.3g}</text>'
        )
    for i, (p, mean) in enumerate(zip(points, means, strict=True)):
        h = mean / peak * (height - top - bottom)
        x = left + i * bar
        tip = escape(f"move {p.k + 1}: mean loss {mean:.4f} over {p.n} moves; {p.bad:.0f} non-optimal")
        body.append(
            f'<g class="bar"><title>{tip}</title>'
            f'<rect x="{x + bar * 0.15:.1f}" y="{height - bottom - h:.1f}" width="{bar * 0.7:.1f}" height="{h:.1f}" fill="#cf222e"/>'
            f'<text x="{x + bar / 2:.1f}" y="{height - bottom + 13}" text-anchor="middle" font-size="11">{p.k + 1}</text>'
            f'<text x="{x + bar / 2:.1f}" y="{height - bottom + 26}" text-anchor="middle" font-size="9" fill="#636c76">n={p.n}</text></g>'
        )
    return Markup(
        f'<svg class="chart loss" viewBox="0 0 {width} {height}" width="100%" role="img" data-bars="{len(points)}">'
        + "".join(body)
        + "</svg>"
    )


def _graded_page(store: Store, matchup: Matchup, row: MatchupRow) -> MatchupPage:
    """The matchup's page on the graded scale (an equilibrium, an engine): loss by move, costliest decisions."""
    moves = store.matchup_moves(matchup)
    points = moves.loss_by_move()
    try:
        engine = get_game(row.game).engine
        f = get_game(row.game).formulation(row.formulation)
    except UserError:
        engine = f = None
    worst = []
    for d in moves.costly_decisions(WORST):
        move = moves.costly_move(d.decision)
        svg = text = best = None
        if engine is not None and f is not None:
            state = engine.deserialize_state(d.state)
            svg = draw(row.game, state, Marks(chosen=move.action if move else None))
            text = f.render_state(state)
            if move is not None:
                top = [a for a in Grade.from_json(move.grade).best_actions if a in state.legal_actions()]
                best = ", ".join(plays(f, state, top)) or None
        worst.append(
            WorstPosition(
                svg=Markup(svg) if svg else None,
                text=text,
                wrong=int(d.wrong),
                seen=d.seen,
                move=named(move.action_label) if move else None,
                move_n=move.n if move else 0,
                lost=d.lost,
                move_loss=move.lost / move.n if move else None,
                best=best,
            )
        )
    unit = points[0].unit if points and points[0].unit in ("score", "payoff") else "score"
    truth = view(row.game, "payoff" if unit == "payoff" else "score")
    words = truth["unit"] if truth is not None else UNITS[unit]
    return MatchupPage(by_move_loss_chart(points), worst, graded=True, unit=words, truth=truth)


def matchup_page(
    store: Store, run_id: int, row: MatchupRow, spellings: tuple[list[str], list[str]]
) -> MatchupPage:
    """What a matchup's page shows, read from the store: exact optimality where the game's ground
    truth is exact (or unknown: the page then says nothing was scored), the graded scale elsewhere."""
    matchup = _matchup(run_id, row, spellings)
    if ground_truth(row.game) is None:
        return MatchupPage(Markup(""), [], ungraded=_missing(row.game))
    if ground_truth(row.game) in ("equilibrium", "engine"):
        return _graded_page(store, matchup, row)
    moves = store.matchup_moves(matchup)
    points = [(p.k, p.n, p.ok) for p in moves.by_move()]
    worst = []
    try:
        engine = get_game(row.game).engine
        f = get_game(row.game).formulation(row.formulation)
    except UserError:
        engine = f = None
    for r in moves.worst_states(WORST):
        wrong = moves.wrong_move(r.state)
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
                move=named(wrong.action_label) if wrong else None,
                move_n=wrong.n if wrong else 0,
            )
        )
    return MatchupPage(by_move_chart(points), worst, truth=view(row.game))


def _missing(game: str) -> str:
    """Why a game is ungraded, in its own words."""
    try:
        return get_game(game).oracle_missing
    except UserError:
        return "this install no longer knows the game"


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


__all__ = ["by_move_chart", "by_move_loss_chart", "escape", "matchup_page", "page_path", "spellings_of"]
