"""What the site shows, read once from the store as plain JSON-ready values.

The replay payload is built here (not in the browser) because labelling every legal move needs
the game's formulation, which lives in Python: each stored state is restored with the engine and
every legal action is named the way the player saw it.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from typing import Any

from ..analysis.ratings import rating_results as rating_results  # the site reads them here
from ..errors import UserError
from ..games import Formulation, get_game
from ..harness.rows import GameRow, ListedGame, MatchupCount, MoveRow, RunRow
from ..harness.store import expand_attempts
from ..players.canonical import printed_run_name
from .boards import Marks, draw
from .evalline import engine_view, source_of

VALUE_NAMES = {1: "win", 0: "draw", -1: "loss"}


def _json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


@cache
def formulation(game: str, spec: str) -> Formulation | None:
    """The formulation a game was played in; None when this install no longer knows it."""
    try:
        return get_game(game).formulation(spec)
    except UserError:
        return None


def run_summaries(runs: list[RunRow], matchups: list[MatchupCount]) -> list[dict[str, Any]]:
    """One line per run: what it played and how it ended, for the index page."""
    by_run: dict[int, list[MatchupCount]] = {r.id: [] for r in runs}
    for m in matchups:
        by_run[m.run_id].append(m)
    out = []
    for r in runs:
        mine = by_run[r.id]
        out.append(
            {
                "id": r.id,
                "name": printed_run_name(r.name),  # as every table prints it (the store keeps its own)
                "kind": r.kind,
                "status": r.status,
                "seed": r.seed,
                "created": datetime.fromtimestamp(r.created).strftime("%Y-%m-%d %H:%M"),
                "games": sum(m.games for m in mine),
                "titles": sorted({m.game for m in mine}),
                "matchups": len(mine),
            }
        )
    return out


def game_summary(g: ListedGame, replay: bool) -> dict[str, Any]:
    """A row of a run's game list: who played, how it ended, how well the player moved."""
    return {
        "id": g.id,
        "idx": g.idx,
        "game": g.game,
        "formulation": g.formulation,
        "player": g.player,
        "opponent": g.opponent,
        "seat": g.player_seat + 1,
        "outcome": g.outcome,
        "failure_kind": g.failure_kind,
        "moves": g.num_moves,
        "optimal": int(g.optimal),
        "scored": int(g.scored),
        "tokens": int(g.played_tokens),
        "replay": replay,
    }


def _payoff_grade(m: MoveRow) -> dict[str, Any] | None:
    """The move's grade where it is an expected payoff against an equilibrium; else None."""
    grade = _json(m.grade)
    return grade if isinstance(grade, dict) and grade.get("unit") == "payoff" else None


def _legal(f: Formulation | None, state: Any, m: MoveRow) -> list[dict[str, Any]]:
    values = _json(m.values_json) or {}
    scores = _json(m.scores_json) or {}
    grade = _payoff_grade(m) or {}
    payoffs, policy = grade.get("expected", {}), (grade.get("detail") or {}).get("policy", {})
    out = []
    for a in _json(m.legal):
        value = values.get(str(a))
        out.append(
            {
                "action": a,
                "label": f.action_label(state, a) if f is not None else str(a),
                "value": VALUE_NAMES.get(value) if value is not None else None,
                "score": scores.get(str(a)),
                # games of hidden information: the equilibrium's probability and value of the action
                "probability": policy.get(str(a)),
                "payoff": payoffs.get(str(a)),
            }
        )
    return out


def _equilibrium(m: MoveRow) -> dict[str, Any] | None:
    """What the chosen action lost against the equilibrium (oracles.equilibrium), for the replay."""
    grade = _payoff_grade(m)
    if grade is None or m.action is None:
        return None
    values = [float(v) for v in grade["expected"].values()]
    detail = grade.get("detail") or {}
    return {
        "loss": m.loss,
        "span": grade.get("span"),
        "informative": max(values) - min(values) > float(grade.get("tolerance", 1e-9)),
        "played": detail.get("played"),
        "probability": (detail.get("policy") or {}).get(str(m.action)),
        "belief": detail.get("belief"),
        "source": grade.get("source"),
    }


def _marks(m: MoveRow, before: Any, last: int | None) -> Marks:
    values = _json(m.values_json) or {}
    scores = _json(m.scores_json) or {}
    return Marks(
        last=last,
        chosen=m.action,
        values={int(a): VALUE_NAMES[v] for a, v in values.items() if v in VALUE_NAMES},
        scores={int(a): s for a, s in scores.items() if s is not None},
        before=before,
    )


def _step(
    f: Formulation | None, engine: Any, m: MoveRow, names: list[str], game: str, prev: MoveRow | None
) -> dict[str, Any]:
    state = engine.deserialize_state(m.state) if f is not None else None
    before = engine.deserialize_state(prev.state) if f is not None and prev is not None else None
    last = prev.action if prev is not None else None
    # hidden information: the board is what the mover saw; the whole state sits behind a toggle
    whole = f.render_whole(state) if f is not None else None
    return {
        "svg": None if whole is not None else draw(game, state, _marks(m, before, last)),
        "whole": whole,
        "ply": m.ply,
        "seat": m.seat,
        "mover": names[m.seat],
        "player": m.player,
        "board": m.observation if m.observation is not None else (f.render_state(state) if f else ""),
        "legal": _legal(f, state, m),
        "action": m.action,
        "label": m.action_label,
        "optimal": None if m.optimal is None else bool(m.optimal),
        "informative": None if m.informative is None else bool(m.informative),
        "optimal_score": None if m.optimal_score is None else bool(m.optimal_score),
        "informative_score": None if m.informative_score is None else bool(m.informative_score),
        "equilibrium": _equilibrium(m),
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
        "attempts": expand_attempts(_json(m.attempts), m),
        "note": _json(m.note),
        "engine": engine_view(m.grade),  # an engine's evaluations (chess); None elsewhere
    }


def _final(
    f: Formulation | None, engine: Any, g: GameRow, moves: list[MoveRow], seats: list[str]
) -> dict[str, Any]:
    """The position after the last move, with the result as the player saw it."""
    board, svg, whole = "", None, None
    if f is not None and moves:
        before = engine.deserialize_state(moves[-1].state)
        state = before.clone()
        last = moves[-1].action
        if last is not None:
            state.apply_action(last)
        board = f.render_state(state)
        whole = f.render_whole(state)
        svg = None if whole is not None else draw(g.game, state, Marks(last=last, before=before))
    returns = _json(g.returns)
    if g.forfeit_by is not None:
        text = f"{seats[g.forfeit_by]} forfeited ({g.failure_kind or 'failure'})."
    else:
        best = max(returns)
        winners = [s for s, r in enumerate(returns) if r == best]
        text = "Draw." if len(winners) > 1 else f"{seats[winners[0]]} won."
    if whole is not None:  # hidden information: what each seat won or lost (chips, points)
        text += " Payoffs: " + ", ".join(f"{seats[s]} {r:+g}" for s, r in enumerate(returns)) + "."
    return {"board": board, "svg": svg, "result": text, "whole": whole}


def replay_payload(g: GameRow, moves: list[MoveRow], run: str) -> dict[str, Any]:
    """Everything the replay page needs for one game, inlined into it as JSON."""
    f = formulation(g.game, g.formulation)
    engine = get_game(g.game).engine if f is not None else None
    player, opponent = g.player, g.opponent
    specs = [player, opponent] if g.player_seat == 0 else [opponent, player]
    names = [f.seat_name(s) if f is not None else f"Player {s + 1}" for s in (0, 1)]
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
        "outcome": g.outcome,
        "seed": g.seed,
        "steps": steps,
        "engine": source_of(steps),
        "final": _final(f, engine, g, moves, seats),
    }
