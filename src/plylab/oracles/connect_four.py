"""Exact Connect Four values and scores: the ground truth for per-move optimality on a 7x6 board.

The search runs in a C extension (`plylab.oracles._connect_four`, built from `_c4/solver.c` by
the package build), because an exact score needs millions of positions per early move. Positions
with 12 stones are read from the MIT-licensed 12-ply book of `bitbully-databases`, so positions
near the start are as quick as the rest: every move of a whole game is scored in a fraction of a
second (bench/RESULTS-connect_four.md).

Scores use the usual convention, from the side to move: a win with one's k-th stone scores
22 - k (larger = sooner), a loss the opposite, a draw 0; a move's score is minus the score of
the position it leads to. Analyses are cached per process and, optionally, on disk.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import pyspiel

from .base import MoveValues

try:
    from ._connect_four import Solver
except ImportError as exc:  # the package was installed without building its extension
    raise ImportError(
        "the compiled Connect Four solver (plylab.oracles._connect_four) is not built; "
        "reinstall plylab with a C compiler and Python headers present: pip install -e ."
    ) from exc

WIDTH = 7
BOOK = "12-ply-dist"


def read_book() -> bytes:
    """The 12-ply opening book with exact distances (21 MB; loads in tens of milliseconds)."""
    try:
        from bitbully_databases import BitBullyDatabases
    except ImportError as exc:
        raise ImportError("the Connect Four opening book is missing: pip install bitbully-databases") from exc
    return Path(BitBullyDatabases.get_database_path(BOOK)).read_bytes()


@cache
def shared_solver() -> Solver:
    """One solver per process: its transposition table (34 MB) stays warm across queries."""
    return Solver(read_book())


def position_key(moves: Sequence[int]) -> str:
    """Columns bottom-up as first/second-player stones: equal for every order reaching a position."""
    columns: list[list[str]] = [[] for _ in range(WIDTH)]
    for ply, col in enumerate(moves):
        if not 0 <= col < WIDTH:
            raise ValueError(f"move {ply}: column {col} is not in 0..{WIDTH - 1}")
        columns[col].append("xo"[ply % 2])
    return "|".join("".join(c) for c in columns)


_MEMO: dict[str, tuple[int | None, ...]] = {}
MEMO_SIZE = 1 << 17  # positions (about 200 bytes each); the oldest go first


def _analyze(key: str, moves: tuple[int, ...]) -> tuple[int | None, ...]:
    """The solver's scores for each column, memoised per process by position."""
    found = _MEMO.get(key)
    if found is None:
        found = _MEMO[key] = shared_solver().analyze(moves)
        if len(_MEMO) > MEMO_SIZE:
            _MEMO.pop(next(iter(_MEMO)), None)
    return found


def clear_caches() -> None:
    """Forget every analysis of this process: the memo and the solver's table (a cold start)."""
    _MEMO.clear()
    shared_solver().reset()


class DiskCache:
    """Analyses in SQLite, shared by processes and runs; a lost write only costs a re-solve."""

    def __init__(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute("CREATE TABLE IF NOT EXISTS analysis (key TEXT PRIMARY KEY, scores TEXT NOT NULL)")

    def get(self, key: str) -> tuple[int | None, ...] | None:
        row = self._db.execute("SELECT scores FROM analysis WHERE key = ?", (key,)).fetchone()
        return None if row is None else tuple(None if s == "-" else int(s) for s in row[0].split(","))

    def put(self, key: str, scores: tuple[int | None, ...]) -> None:
        text = ",".join("-" if s is None else str(s) for s in scores)
        self._db.execute("INSERT OR REPLACE INTO analysis VALUES (?, ?)", (key, text))


class ConnectFourOracle:
    """Exact value and score of every legal move (the `Oracle` protocol), plus `solve`."""

    def __init__(self, disk_cache: str | Path | None = None) -> None:
        shared_solver()  # fail now, clearly, rather than at the first move
        self._disk = DiskCache(disk_cache) if disk_cache is not None else None

    def scores(self, moves: Sequence[int]) -> dict[int, int]:
        """Exact score of each legal column (0-based) after `moves`; ValueError for an illegal or
        finished sequence."""
        moves = tuple(moves)
        key = position_key(moves)
        found = self._disk.get(key) if self._disk is not None else None
        if found is None:
            found = _analyze(key, moves)
            if self._disk is not None:
                self._disk.put(key, found)
        return {col: s for col, s in enumerate(found) if s is not None}

    def solve(self, moves: Sequence[int]) -> int:
        """Exact score of the position after `moves` (0-based columns) for the side to move."""
        return max(self.scores(moves).values())

    def move_values(self, state: pyspiel.State) -> MoveValues:
        if state.is_terminal():
            raise ValueError("a terminal position has no moves to value")
        scores = self.scores(state.history())
        return MoveValues(values={a: (s > 0) - (s < 0) for a, s in scores.items()}, scores=scores)
