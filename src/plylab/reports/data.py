"""What the site shows, read once from the store as plain JSON-ready values.

The replay payload is built here (not in the browser) because labelling every legal move needs
the game's formulation, which lives in Python: each stored state is restored with the engine and
every legal action is named the way the player saw it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import datetime
from functools import cache
from typing import Any

from ..errors import UserError
from ..games import Formulation, get_game
from .ratings import SCORES, Result

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


def run_summaries(runs: list[sqlite3.Row], games: list[sqlite3.Row]) -> list[dict[str, Any]]:
    """One line per run: what it played and how it ended, for the index page."""
    by_run: dict[int, list[sqlite3.Row]] = {r["id"]: [] for r in runs}
    for g in games:
        by_run[g["run_id"]].append(g)
    out = []
    for r in runs:
        mine = by_run[r["id"]]
        out.append({
            "id": r["id"], "name": r["name"], "kind": r["kind"], "status": r["status"], "seed": r["seed"],
            "created": datetime.fromtimestamp(r["created"]).strftime("%Y-%m-%d %H:%M"),
            "games": len(mine),
            "titles": sorted({g["game"] for g in mine}),
            "matchups": len({(g["game"], g["formulation"], g["player"], g["opponent"]) for g in mine}),
        })
    return out


def rating_results(games: Iterable[sqlite3.Row]) -> list[Result]:
    return [Result(g["player"], g["opponent"], SCORES[g["outcome"]]) for g in games]


def game_summary(g: sqlite3.Row, moves: list[sqlite3.Row]) -> dict[str, Any]:
    """A row of a run's game list: who played, how it ended, how well the player moved."""
    mine = [m for m in moves if m["seat"] == g["player_seat"] and m["action"] is not None]
    scored = [m for m in mine if m["informative"] == 1]
    return {
        "id": g["id"], "idx": g["idx"], "game": g["game"], "formulation": g["formulation"],
        "player": g["player"], "opponent": g["opponent"], "seat": g["player_seat"] + 1,
        "outcome": g["outcome"], "failure_kind": g["failure_kind"], "moves": g["num_moves"],
        "optimal": sum(m["optimal"] for m in scored), "scored": len(scored),
        "tokens": sum(m["output_tokens"] for m in mine),
    }


def _legal(f: Formulation | None, state: Any, m: sqlite3.Row) -> list[dict[str, Any]]:
    values = _json(m["values_json"]) or {}
    scores = _json(m["scores_json"]) or {}
    out = []
    for a in _json(m["legal"]):
        value = values.get(str(a))
        out.append({
            "action": a,
            "label": f.action_label(state, a) if f is not None else str(a),
            "value": VALUE_NAMES.get(value) if value is not None else None,
            "score": scores.get(str(a)),
        })
    return out


def _step(f: Formulation | None, engine: Any, m: sqlite3.Row, names: list[str]) -> dict[str, Any]:
    state = engine.deserialize_state(m["state"]) if f is not None else None
    return {
        "ply": m["ply"], "seat": m["seat"], "mover": names[m["seat"]], "player": m["player"],
        "board": m["observation"] if m["observation"] is not None else (f.render_state(state) if f else ""),
        "legal": _legal(f, state, m),
        "action": m["action"], "label": m["action_label"],
        "optimal": None if m["optimal"] is None else bool(m["optimal"]),
        "informative": None if m["informative"] is None else bool(m["informative"]),
        "optimal_score": None if m["optimal_score"] is None else bool(m["optimal_score"]),
        "informative_score": None if m["informative_score"] is None else bool(m["informative_score"]),
        "prompt": m["prompt"], "reply": m["reply"], "reasoning": m["reasoning"],
        "tokens": {"input": m["input_tokens"], "output": m["output_tokens"], "reasoning": m["reasoning_tokens"]},
        "calls": m["calls"], "cache_hits": m["cache_hits"], "cost": m["cost"], "elapsed": m["elapsed"],
        "failure_kind": m["failure_kind"], "attempts": _json(m["attempts"]), "note": _json(m["note"]),
    }


def _final(f: Formulation | None, engine: Any, g: sqlite3.Row, moves: list[sqlite3.Row], seats: list[str]) -> dict[str, Any]:
    """The position after the last move, with the result as the player saw it."""
    board = ""
    if f is not None and moves:
        state = engine.deserialize_state(moves[-1]["state"])
        if moves[-1]["action"] is not None:
            state.apply_action(moves[-1]["action"])
        board = f.render_state(state)
    if g["forfeit_by"] is not None:
        text = f"{seats[g['forfeit_by']]} forfeited ({g['failure_kind'] or 'failure'})."
    else:
        returns = _json(g["returns"])
        text = "Draw." if returns[0] == returns[1] else f"{seats[0 if returns[0] > returns[1] else 1]} won."
    return {"board": board, "result": text}


def replay_payload(g: sqlite3.Row, moves: list[sqlite3.Row], run: str) -> dict[str, Any]:
    """Everything the replay page needs for one game, inlined into it as JSON."""
    f = formulation(g["game"], g["formulation"])
    engine = get_game(g["game"]).engine if f is not None else None
    specs = [g["player"], g["opponent"]] if g["player_seat"] == 0 else [g["opponent"], g["player"]]
    names = [f.seat_name(s) if f is not None else f"Player {s + 1}" for s in (0, 1)]
    seats = [f"{names[s]} ({specs[s]})" for s in (0, 1)]
    return {
        "id": g["id"], "run": run, "game": g["game"], "formulation": g["formulation"],
        "title": get_game(g["game"]).title if f is not None else g["game"],
        "player": g["player"], "opponent": g["opponent"], "player_seat": g["player_seat"],
        "seats": seats, "seat_names": names, "outcome": g["outcome"], "seed": g["seed"],
        "steps": [_step(f, engine, m, names) for m in moves],
        "final": _final(f, engine, g, moves, seats),
    }
