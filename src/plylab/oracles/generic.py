"""An exact minimax table for any OpenSpiel game whose tree is small enough to enumerate.

Positions are keyed by (player to move, the engine's state text), so transpositions share one
entry; that is only sound where the state text is the whole position, so the table is offered
for the games listed in `BOUNDS`, each with a cheap upper bound on its positions computed from
its parameters. A game whose bound is over the limit (PLYLAB_ORACLE_LIMIT, default 2,000,000
positions) has no oracle: it is played unscored, never half-solved. The table is built on first
use (about 11 microseconds a position) and cached on disk like the dedicated tables.

Values are exact returns for the player to move: `MoveValues.values` is their sign (win, draw,
loss), and `scores` the returns themselves where the game's utility is finer than +-1 (e.g.
dots_and_boxes:utility_margin=true).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pyspiel

from .base import MoveValues
from .cachefile import read_cache, write_whole
from .minimax import ExactTable, cache_dir, position_key

DEFAULT_LIMIT = 2_000_000


def limit() -> int:
    """The state-count limit: games whose bound exceeds it have no oracle."""
    text = os.environ.get("PLYLAB_ORACLE_LIMIT", "")
    return int(text) if text.strip().isdigit() else DEFAULT_LIMIT


def _p(game: pyspiel.Game) -> dict[str, Any]:
    return cast(dict[str, Any], game.get_parameters())


def _cells(game: pyspiel.Game) -> int:
    """Cells of a board game whose observation tensor is one plane per cell state."""
    shape = game.observation_tensor_shape()
    return math.prod(shape[1:]) if len(shape) == 3 else game.num_distinct_actions()


def _nim(game: pyspiel.Game) -> int:
    piles = [int(x) for x in str(_p(game).get("pile_sizes", "1;3;5;7")).split(";") if x.strip()]
    return 2 * math.prod(p + 1 for p in piles)


def _connect_four(game: pyspiel.Game) -> int:
    rows, cols = game.observation_tensor_shape()[1:]
    return int((2 ** (rows + 1) - 1) ** cols)  # each column: a stack of x/o, up to `rows` high


def _dots_and_boxes(game: pyspiel.Game) -> int:
    params = _p(game)
    boxes = int(params.get("num_rows", 2)) * int(params.get("num_cols", 2))
    return int(2 ** (game.num_distinct_actions() + boxes + 1))  # lines drawn, box owners, mover


# Games whose state text is the whole position, with an upper bound on their positions.
BOUNDS: dict[str, Callable[[pyspiel.Game], int]] = {
    "tic_tac_toe": lambda g: 3**9,
    "nim": _nim,
    "mnk": lambda g: 3 ** g.num_distinct_actions(),
    "hex": lambda g: 3 ** g.num_distinct_actions(),
    "gomoku": lambda g: 3 ** g.num_distinct_actions(),
    "connect_four": _connect_four,
    "breakthrough": lambda g: 3 ** _cells(g),
    "clobber": lambda g: 3 ** _cells(g),
    "dots_and_boxes": _dots_and_boxes,
}


def _breakthrough_moves(game: pyspiel.Game) -> int:
    """A side has at most two rows of pieces, each with at most three moves (straight, two diagonals);
    the engine's action count (every square x every direction x capture or not) is 12 times the board."""
    return 3 * 2 * int(_p(game)["columns"])


# Most legal moves in any position where the engine's action count overstates it; else that count.
BRANCHING: dict[str, Callable[[pyspiel.Game], int]] = {"breakthrough": _breakthrough_moves}

# The parameters whose product sizes each game's board (what `exact_at` states); one example each
# of a small instance the table scores (`SMALL`, played against `optimal` by the tests).
SIZES: dict[str, tuple[str, ...]] = {
    "mnk": ("m", "n"),
    "hex": ("board_size",),
    "gomoku": ("size",),
    "connect_four": ("rows", "columns"),
    "breakthrough": ("rows", "columns"),
    "clobber": ("rows", "columns"),
    "dots_and_boxes": ("num_rows", "num_cols"),
}
SMALL: dict[str, str] = {
    "tic_tac_toe": "tic_tac_toe",
    "nim": "nim:pile_sizes=1;2;3",
    "mnk": "mnk:m=3,n=3,k=3",
    "hex": "hex:board_size=3",
    "gomoku": "gomoku:size=3,connect=3",
    "connect_four": "connect_four:rows=3,columns=4,x_in_row=3",
    "breakthrough": "breakthrough:rows=4,columns=3",
    "clobber": "clobber:rows=3,columns=3",
    "dots_and_boxes": "dots_and_boxes:num_rows=1,num_cols=2",
}


def branching(game: pyspiel.Game) -> int:
    """An upper bound on the legal moves of any position of `game`."""
    own = BRANCHING.get(game.get_type().short_name)
    return own(game) if own is not None else int(game.num_distinct_actions())


def bound(game: pyspiel.Game) -> int | None:
    """Upper bound on the positions of `game`, or None where no table is offered for it."""
    estimate = BOUNDS.get(game.get_type().short_name)
    if estimate is None or game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        return None
    return estimate(game)


# Building visits every move of every position and recurses once per ply: the table is offered
# where its positions x moves (edges) and its depth are bounded too, not its positions alone
# (nim:pile_sizes=100000 has 200,002 positions but 10^10 edges, 10^5 levels deep).
EDGES_PER_POSITION_LIMIT = 20  # edges at most this many times the position limit (40,000,000)
MAX_DEPTH = 10_000


def fits(game: pyspiel.Game, max_positions: int | None = None) -> bool:
    """True when the generic table is offered for `game` under the state-count limit, and its
    edges (positions x moves) and depth (longest game) are bounded too."""
    b = bound(game)
    cap = limit() if max_positions is None else max_positions
    if b is None or b > cap or game.max_game_length() > MAX_DEPTH:
        return False
    return bool(b * branching(game) <= EDGES_PER_POSITION_LIMIT * cap)


MAX_SIZE_PRODUCT = 64  # where `exact_at` stops looking


@functools.cache
def largest_fitting(name: str, fixed: tuple[tuple[str, object], ...] = ()) -> int | None:
    """The largest P such that every valid instance of game `name` whose sizing parameters
    (`SIZES`) multiply to at most P gets the table (`fits`, the rule `derived_truth` applies);
    None where no instance of at least one cell does, or the game is not sized here."""
    from ..quiet import engine_quiet

    keys = SIZES.get(name)
    if keys is None:
        return None
    best, valid = None, False
    for product in range(1, MAX_SIZE_PRODUCT + 1):
        for sizes in _factorisations(product, len(keys)):
            try:
                with engine_quiet():
                    game = pyspiel.load_game(name, {**dict(fixed), **dict(zip(keys, sizes, strict=True))})
                    game.new_initial_state()
            except pyspiel.SpielError:
                continue  # not a valid board (breakthrough needs two rows)
            if not fits(game):
                return best if valid else None
            valid = True
        best = product
    return best if valid else None


def _factorisations(product: int, parts: int) -> list[tuple[int, ...]]:
    """Every ordered tuple of `parts` positive integers whose product is `product`."""
    if parts == 1:
        return [(product,)]
    return [
        (d, *rest)
        for d in range(1, product + 1)
        if product % d == 0
        for rest in _factorisations(product // d, parts - 1)
    ]


def exact_at(name: str, fixed: dict[str, object] | None = None) -> str | None:
    """Where the generic table scores game `name`, in words ("exact at rows×columns ≤ 12, e.g.
    breakthrough:rows=4,columns=3"), derived from `fits`; None where it never does."""
    top = largest_fitting(name, tuple(sorted((fixed or {}).items())))
    if top is None:
        return None
    example = f", e.g. {SMALL[name]}" if name in SMALL else ""
    return f"exact at {'×'.join(SIZES[name])} ≤ {top}{example}"


class TooLarge(RuntimeError):
    """The reachable positions exceeded the limit while building."""


def cache_path(key: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9_.=-]+", "_", key)[:80]
    digest = hashlib.sha256(key.encode()).hexdigest()[:10]
    return cache_dir() / f"generic-{slug}-{digest}.json"


class GenericOracle(ExactTable):
    """Exact value (and score) of every legal move, from a table of every reachable position."""

    def __init__(self, game: pyspiel.Game, values: dict[str, float], build_seconds: float = 0.0) -> None:
        super().__init__(game, values, build_seconds)
        self.has_scores = game.max_utility() > 1 or game.min_utility() < -1

    @classmethod
    def build(cls, game: pyspiel.Game, max_positions: int | None = None) -> GenericOracle:
        """Minimax over the whole reachable tree (no pruning: every position gets its value)."""
        cap = limit() if max_positions is None else max_positions
        start = time.perf_counter()
        values: dict[str, float] = {}
        on_path: set[str] = set()

        def solve(state: pyspiel.State, key: str) -> float:
            on_path.add(key)
            mover = state.current_player()
            best = -math.inf
            for action in state.legal_actions():
                child = state.child(action)
                if child.is_terminal():
                    v = child.returns()[mover]
                else:
                    ck = position_key(child)
                    found = values.get(ck)
                    if found is None:
                        if ck in on_path:
                            raise TooLarge(f"the game has cycles ({ck!r} repeats)")
                        found = solve(child, ck)
                    v = found if child.current_player() == mover else -found
                best = max(best, v)
            on_path.discard(key)
            values[key] = best
            if len(values) > cap:
                raise TooLarge(f"more than {cap:,} positions")
            return best

        root = game.new_initial_state()
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 4 * game.max_game_length() + 1000))
        try:
            solve(root, position_key(root))
        finally:
            sys.setrecursionlimit(old)
        return cls(game, values, time.perf_counter() - start)

    @classmethod
    def load_or_build(cls, game: pyspiel.Game, key: str) -> GenericOracle:
        """The cached table of the game named `key` (canonical spec), built on first use."""
        path = cache_path(key)
        text = read_cache(path)  # a FIFO or other non-regular file: one line, not a blocked read
        if text is not None:
            try:
                data = json.loads(text)
                if data.get("game") == key:
                    return cls(game, data["values"], data.get("build_seconds", 0.0))
            except (ValueError, KeyError, AttributeError):
                pass  # a torn or foreign file: rebuild it
        table = cls.build(game)
        write_whole(
            path, json.dumps({"game": key, "build_seconds": table.build_seconds, "values": table.values})
        )
        return table

    def __len__(self) -> int:
        return len(self.values)

    def move_values(self, state: pyspiel.State) -> MoveValues:
        if state.is_terminal():
            raise ValueError("a terminal position has no moves to value")
        return super().move_values(state)
