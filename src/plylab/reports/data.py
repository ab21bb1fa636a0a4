"""What the site shows, read once from the store as plain JSON-ready values.

The replay payload is built here (not in the browser) because labelling every legal move needs
the game's formulation, which lives in Python: each stored state is restored with the engine and
every legal action is named the way the player saw it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING

from ..analysis.backgammon import BackgammonRow
from ..analysis.ratings import rating_results as rating_results  # the site reads them here
from ..errors import UserError
from ..games import Formulation, get_game
from ..games.boards import Marks, draw
from ..harness.rows import GameRow, ListedGame, MatchupCount, MoveRow, RunRow
from ..harness.store import expand_attempts
from ..jsontypes import JSONObject, JSONValue
from ..oracles.graded import Decision, Grade
from ..players.canonical import printed_run_name
from .chessgames import GameChess
from .evalline import engine_view, source_of
from .moves import named, plays
from .payload import DecisionView, Final, LegalMove, Replay, Step
from .seats import first_mover, seat_names
from .truth import judged, view

if TYPE_CHECKING:
    import pyspiel

VALUE_NAMES = {1: "win", 0: "draw", -1: "loss"}


def _json(text: str | None) -> JSONValue:
    return None if text is None else json.loads(text)


def _object(text: str | None) -> JSONObject:
    """A stored JSON object ({} for none)."""
    found = _json(text)
    return found if isinstance(found, dict) else {}


def _part(obj: JSONObject, key: str) -> JSONObject:
    """`obj[key]` where it is an object, else {}."""
    found = obj.get(key)
    return found if isinstance(found, dict) else {}


def _number(v: JSONValue) -> float | None:
    """A stored number as stored (an int stays an int); None for anything else."""
    return v if isinstance(v, int | float) else None


def _value_names(values: JSONObject) -> dict[int, str]:
    """Exact values per action (JSON keys) as win / draw / loss."""
    return {int(a): VALUE_NAMES[v] for a, v in values.items() if isinstance(v, int) and v in VALUE_NAMES}


def _scores(scores: JSONObject) -> dict[int, float]:
    return {int(a): s for a, v in scores.items() if (s := _number(v)) is not None}


@cache
def formulation(game: str, spec: str) -> Formulation | None:
    """The formulation a game was played in; None when this install no longer knows it."""
    try:
        return get_game(game).formulation(spec)
    except UserError:
        return None


@dataclass(frozen=True)
class RunSummary:
    """One line per run: what it played and how it ended, for the index page."""

    id: int
    name: str
    kind: str
    status: str
    seed: int
    created: str  # when it started, as the page prints it
    games: int
    titles: list[str]
    matchups: int


def run_summaries(runs: list[RunRow], matchups: list[MatchupCount]) -> list[RunSummary]:
    """One line per run: what it played and how it ended, for the index page."""
    by_run: dict[int, list[MatchupCount]] = {r.id: [] for r in runs}
    for m in matchups:
        by_run[m.run_id].append(m)
    out = []
    for r in runs:
        mine = by_run[r.id]
        out.append(
            RunSummary(
                id=r.id,
                name=printed_run_name(r.name),  # as every table prints it (the store keeps its own)
                kind=r.kind,
                status=r.status,
                seed=r.seed,
                created=datetime.fromtimestamp(r.created).strftime("%Y-%m-%d %H:%M"),
                games=sum(m.games for m in mine),
                titles=sorted({m.game for m in mine}),
                matchups=len(mine),
            )
        )
    return out


@dataclass(frozen=True)
class GameSummary:
    """A row of a run's game list: who played, how it ended, how well the player moved (its fields
    in the order of the game list's script rows, gamelist.FIELDS)."""

    id: int
    idx: int
    game: str
    formulation: str
    player: str
    seat: int  # from 1
    opponent: str
    outcome: str
    failure_kind: str | None
    moves: int
    optimal: int
    scored: int
    tokens: int
    replay: bool  # whether the game has a replay page
    graded: int = 0  # the player's moves graded on the one scale (oracles.graded)
    nonoptimal: int = 0  # of them, those that lost more than the ground truth's tolerance
    mean_loss: float | None = None  # their mean loss (expected score, or payoff against an equilibrium)
    acpl: float | None = None  # chess: the player's average centipawn loss in the game
    accuracy: float | None = None  # chess: the player's accuracy (lichess's, 0..100)
    blunders: int | None = None  # chess: the player's moves judged blunders
    seat_name: str = ""  # the seat as the site names it (chess: White or Black)

    def values(self) -> list[JSONValue]:
        """The row as the game list's script holds it: the fields' values, in their order."""
        return [getattr(self, f.name) for f in fields(self)]


@dataclass(frozen=True)
class Tally:
    """The player's graded decisions in one game, counted from the one record (`judged`), as its
    replay counts them: how many, how many gave up value, their loss summed."""

    graded: int = 0
    nonoptimal: int = 0
    loss_sum: float = 0.0


def tally(game: str, grades: list[tuple[int, str]]) -> Tally:
    """`grades`: the player's (action, stored grade) in one game of `game` (Store.player_grades)."""
    decided = [d for a, text in grades if (d := judged(game, Grade.from_json(text), a)) is not None]
    return Tally(len(decided), sum(d.lost for d in decided), sum(d.loss for d in decided))


def game_summary(
    g: ListedGame,
    replay: bool,
    chess: GameChess | None = None,
    gnubg: BackgammonRow | None = None,
    decided: Tally | None = None,
) -> GameSummary:
    """A row of a run's game list: who played, how it ended, how well the player moved (`decided`:
    its graded decisions as the one record counts them; with `chess`, the engine's figures of the
    player's moves; with `gnubg`, backgammon's decisions, marked errors and error per decision as the
    matchup's table counts them, analysis/backgammon.py)."""
    if gnubg is not None:
        marked = gnubg.doubtful + gnubg.bad + gnubg.very_bad
        per = gnubg.error / gnubg.decisions if gnubg.decisions else None
        g = replace(
            g,
            graded=gnubg.decisions,
            nonoptimal=marked,
            loss_sum=0.0 if per is None else per * gnubg.decisions,
        )
    elif decided is not None:
        g = replace(g, graded=decided.graded, nonoptimal=decided.nonoptimal, loss_sum=decided.loss_sum)
    return GameSummary(
        id=g.id,
        idx=g.idx,
        game=g.game,
        formulation=g.formulation,
        player=g.player,
        seat=g.player_seat + 1,
        opponent=g.opponent,
        outcome=g.outcome,
        failure_kind=g.failure_kind,
        moves=g.num_moves,
        optimal=int(g.optimal),
        scored=int(g.scored),
        tokens=int(g.played_tokens),
        replay=replay,
        graded=int(g.graded),
        nonoptimal=int(g.nonoptimal),
        mean_loss=g.loss_sum / g.graded if g.graded else None,
        acpl=None if chess is None else chess.acpl,
        accuracy=None if chess is None else chess.accuracy,
        blunders=None if chess is None else chess.blunders,
        seat_name=seat_names(g.game, formulation(g.game, g.formulation))[g.player_seat],
    )


def _grade(m: MoveRow) -> Grade | None:
    """The move's stored grade; None where it was not graded."""
    return Grade.from_json(m.grade) if m.grade else None


def _label(f: Formulation | None, state: pyspiel.State | None, a: int) -> str:
    """The move as the site names it (reports/moves.py): the player's label, no action number."""
    return named(f.action_label(state, a) if f is not None else str(a)) or str(a)


def _legal(
    f: Formulation | None, state: pyspiel.State | None, m: MoveRow, d: Decision | None
) -> list[LegalMove]:
    values = _object(m.values_json)
    scores = _object(m.scores_json)
    out: list[LegalMove] = []
    legal = _json(m.legal)
    for a in legal if isinstance(legal, list) else []:
        assert isinstance(a, int)
        value = values.get(str(a))
        out.append(
            {
                "action": a,
                "label": _label(f, state, a),
                "value": VALUE_NAMES.get(value) if isinstance(value, int) else None,
                "score": _number(scores.get(str(a))),
                "graded": None if d is None else d.values.get(a),
                "probability": None if d is None or d.probabilities is None else d.probabilities.get(a, 0.0),
            }
        )
    return out


def _decision(f: Formulation | None, state: pyspiel.State | None, d: Decision | None) -> DecisionView | None:
    """The graded decision (oracles.graded.Decision) as the replay reads it."""
    if d is None:
        return None
    return {
        "kind": d.kind,
        "source": d.source,
        "unit": d.unit,
        "span": d.span,
        "exact": d.exact,
        "loss": d.loss,
        "judgement": d.judgement,
        "informative": d.informative,
        "lost": d.lost,
        "value": d.values.get(d.played),
        "probability": None if d.probabilities is None else d.probabilities.get(d.played, 0.0),
        "best": plays(f, state, d.best),
    }


def _marks(m: MoveRow, before: pyspiel.State | None, last: int | None) -> Marks:
    return Marks(
        last=last,
        chosen=m.action,
        values=_value_names(_object(m.values_json)),
        scores=_scores(_object(m.scores_json)),
        before=before,
    )


def _step(
    f: Formulation | None,
    engine: pyspiel.Game | None,
    m: MoveRow,
    names: list[str],
    game: str,
    prev: MoveRow | None,
) -> Step:
    state = engine.deserialize_state(m.state) if engine is not None else None
    before = engine.deserialize_state(prev.state) if engine is not None and prev is not None else None
    last = prev.action if prev is not None else None
    # hidden information: the board is what the mover saw; the whole state sits behind a toggle
    whole = f.render_whole(state) if f is not None else None
    graded = judged(game, _grade(m), m.action)
    return {
        "svg": None if whole is not None else draw(game, state, _marks(m, before, last)),
        "whole": whole,
        "ply": m.ply,
        "seat": m.seat,
        "mover": names[m.seat],
        "player": m.player,
        "board": m.observation if m.observation is not None else (f.render_state(state) if f else ""),
        "legal": _legal(f, state, m, graded),
        "action": m.action,
        "label": named(m.action_label),
        "optimal": None if m.optimal is None else bool(m.optimal),
        "informative": None if m.informative is None else bool(m.informative),
        "optimal_score": None if m.optimal_score is None else bool(m.optimal_score),
        "informative_score": None if m.informative_score is None else bool(m.informative_score),
        "decision": _decision(f, state, graded),
        "prompt": m.prompt,
        "reply": m.reply,
        "reasoning": m.reasoning,
        "tokens": {
            "input": m.input_tokens,
            "output": m.output_tokens,
            "reasoning": m.reasoning_tokens,
        },
        "calls": m.calls,
        "cache_hits": m.cache_hits,
        "cost": m.cost,
        "elapsed": m.elapsed,
        "failure_kind": m.failure_kind,
        "attempts": expand_attempts(_attempts(m.attempts), m),
        "note": _json(m.note),
        "seen": _seen(game, state, m),
        "engine": engine_view(m.grade, m.ply),  # an engine's evaluations (chess); None elsewhere
    }


def _seen(game: str, state: pyspiel.State | None, m: MoveRow) -> str | None:
    """The board the model was shown as an image (`llm` with view=image): the same drawing, no
    marks, that the player rendered to PNG; None for a move asked in text."""
    if state is None or _object(m.note).get("view") not in ("image", "image+text"):
        return None
    return draw(game, state, Marks())


def _attempts(text: str | None) -> list[JSONObject] | None:
    """A move's stored attempts (None for an older store without them)."""
    found = _json(text)
    return [a for a in found if isinstance(a, dict)] if isinstance(found, list) else None


def _final(
    f: Formulation | None, engine: pyspiel.Game | None, g: GameRow, moves: list[MoveRow], seats: list[str]
) -> Final:
    """The position after the last move, with the result as the player saw it."""
    board, svg, whole = "", None, None
    if f is not None and engine is not None and moves:
        before = engine.deserialize_state(moves[-1].state)
        state = before.clone()
        last = moves[-1].action
        if last is not None:
            state.apply_action(last)
        board = f.render_state(state)
        whole = f.render_whole(state)
        svg = None if whole is not None else draw(g.game, state, Marks(last=last, before=before))
    returns: list[float] = json.loads(g.returns)
    if g.forfeit_by is not None:
        text = f"{seats[g.forfeit_by]} forfeited ({g.failure_kind or 'failure'})."
    else:
        best = max(returns)
        winners = [s for s, r in enumerate(returns) if r == best]
        text = "Draw." if len(winners) > 1 else f"{seats[winners[0]]} won."
    if whole is not None:  # hidden information: what each seat won or lost (chips, points)
        text += " Payoffs: " + ", ".join(f"{seats[s]} {r:+g}" for s, r in enumerate(returns)) + "."
    return {"board": board, "svg": svg, "result": text, "whole": whole}


def replay_payload(g: GameRow, moves: list[MoveRow], run: str) -> Replay:
    """Everything the replay page needs for one game, inlined into it as JSON."""
    f = formulation(g.game, g.formulation)
    engine = get_game(g.game).engine if f is not None else None
    player, opponent = g.player, g.opponent
    specs = [player, opponent] if g.player_seat == 0 else [opponent, player]
    names = seat_names(g.game, f)
    seats = [f"{names[s]} ({specs[s]})" for s in (0, 1)]
    steps = [_step(f, engine, m, names, g.game, moves[i - 1] if i else None) for i, m in enumerate(moves)]
    return {
        "id": g.id,
        "run": run,
        "game": g.game,
        "formulation": g.formulation,
        # a formulation other than the engine's own surface disguises the board: show both
        "disguised": g.formulation != "standard",
        # each step shows what its mover saw; the whole state (hands, dice) is behind a toggle
        "hidden": f is not None and not get_game(g.game).perfect_information,
        "title": get_game(g.game).title if f is not None else g.game,
        "player": player,
        "opponent": opponent,
        "player_seat": g.player_seat,
        "seats": seats,
        "seat_names": names,
        "first": first_mover(g.game),
        "outcome": g.outcome,
        "seed": g.seed,
        "steps": steps,
        "engine": source_of(steps),
        "truth": view(g.game, next((d["unit"] for s in steps if (d := s["decision"])), "score")),
        "final": _final(f, engine, g, moves, seats),
    }
