"""Exact minimax tables for games small enough to enumerate (tic-tac-toe, misère Nim).

Built once by a memoised search over the whole reachable tree, then cached on disk as JSON
keyed by the position (board text + player to move), so any history reaching the same
position shares one entry.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path

import pyspiel

from .base import MoveValues
from .cachefile import read_cache, write_whole


def cache_dir() -> Path:
    root = os.environ.get("PLYLAB_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "plylab"
    )
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def position_key(state: pyspiel.State) -> str:
    return f"{state.current_player()}|{state}"


class ExactTable:
    """Exact values of every reachable position for the player to move; a move is valued by one
    lookup of its child (memoised per position). `has_scores`: the returns are finer than +-1."""

    has_scores = False

    def __init__(self, game: pyspiel.Game, values: Mapping[str, float], build_seconds: float = 0.0) -> None:
        self.game = game
        self.values = values
        self.build_seconds = build_seconds
        self._moves: dict[str, MoveValues] = {}  # per-position memo: scoring a move is one lookup

    def move_values(self, state: pyspiel.State) -> MoveValues:
        key = position_key(state)
        found = self._moves.get(key)
        if found is None:
            found = self._moves[key] = self._compute(state)
        return found

    def _compute(self, state: pyspiel.State) -> MoveValues:
        mover = state.current_player()
        returns: dict[int, float] = {}
        for action in state.legal_actions():
            child = state.child(action)
            if child.is_terminal():
                returns[action] = child.returns()[mover]
            else:
                v = self.values[position_key(child)]
                returns[action] = v if child.current_player() == mover else -v
        values = {a: (r > 0) - (r < 0) for a, r in returns.items()}
        scores = {a: int(round(r)) for a, r in returns.items()} if self.has_scores else None
        return MoveValues(values=values, scores=scores)


class MinimaxTable(ExactTable):
    """Value of every reachable position for the player to move (+1 / 0 / -1)."""

    @classmethod
    def build(cls, game: pyspiel.Game) -> MinimaxTable:
        start = time.perf_counter()
        values: dict[str, int] = {}

        def solve(state: pyspiel.State) -> int:
            key = position_key(state)
            cached = values.get(key)
            if cached is not None:
                return cached
            mover = state.current_player()
            best = -2
            for action in state.legal_actions():
                child = state.child(action)
                if child.is_terminal():
                    v = int(round(child.returns()[mover]))
                else:
                    v = solve(child) if child.current_player() == mover else -solve(child)
                best = max(best, v)  # no pruning: the table must hold every reachable position
            values[key] = best
            return best

        solve(game.new_initial_state())
        return cls(game, values, time.perf_counter() - start)

    @classmethod
    def load_or_build(cls, game: pyspiel.Game, name: str) -> MinimaxTable:
        path = cache_dir() / f"minimax-{name}.json"
        text = read_cache(path)  # a FIFO or other non-regular file: one line, not a blocked read
        if text is not None:
            try:
                return cls(game, json.loads(text))
            except ValueError:
                pass  # a torn or foreign file: rebuild it
        table = cls.build(game)
        write_whole(path, json.dumps(table.values))
        return table
