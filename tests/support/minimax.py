"""A plain minimax over OpenSpiel states, written for the tests and sharing nothing with
`plylab.oracles`: the stored scores are checked against it, so an oracle (or scorer) that is wrong
fails a test instead of grading itself."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pyspiel


def plain_minimax(game: pyspiel.Game):  # noqa: ANN201 - a memoised closure
    """value(state) -> the game value for player 0 under perfect play (+1 / 0 / -1)."""
    memo: dict[tuple[int, str], float] = {}

    def value_of(state: pyspiel.State) -> float:
        if state.is_terminal():
            return state.returns()[0]
        key = (state.current_player(), str(state))
        if key not in memo:
            children = []
            for action in state.legal_actions():
                child = state.clone()
                child.apply_action(action)
                children.append(value_of(child))
            memo[key] = max(children) if state.current_player() == 0 else min(children)
        return memo[key]

    return value_of


@dataclass
class Rescored:
    scored: int = 0  # informative moves: not every legal move had the same value
    optimal: int = 0
    agree: int = 0  # moves whose stored optimal/informative flags match the plain minimax
    moves: int = 0


def rescore(
    store: Path,
    game_name: str,
    openspiel_name: str,
    params: dict[str, object] | None = None,
    player: str | None = None,
    formulation: str | None = None,
) -> Rescored:
    """Recompute, with `plain_minimax`, whether every stored move of `player` (all players if None;
    in games of `formulation`, all if None) was optimal and informative, and count how often the
    store agrees."""
    game = pyspiel.load_game(openspiel_name, dict(params or {}))
    value = plain_minimax(game)
    out = Rescored()
    with sqlite3.connect(store) as conn:
        conn.row_factory = sqlite3.Row
        rows = conn.execute(
            "SELECT m.* FROM moves m JOIN games g ON g.id = m.game_id WHERE g.game = ? AND g.formulation LIKE ?"
            " ORDER BY m.game_id, m.ply",
            (game_name, formulation or "%"),
        ).fetchall()
    for m in rows:
        if (player is not None and m["player"] != player) or m["action"] is None:
            continue
        state = game.deserialize_state(m["state"])
        sign = 1 if state.current_player() == 0 else -1
        values = {}
        for action in json.loads(m["legal"]):
            child = state.clone()
            child.apply_action(action)
            values[action] = sign * value(child)
        best = max(values.values())
        informative = len(set(values.values())) > 1
        optimal = values[m["action"]] == best
        out.moves += 1
        out.scored += informative
        out.optimal += informative and optimal
        out.agree += (bool(m["informative"]), bool(m["optimal"])) == (informative, optimal)
    return out
