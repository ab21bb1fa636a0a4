"""Game parameters in the game name: `nim:pile_sizes=2;4;6`, `mnk:m=4,n=4,k=3`.

A game name is a spec (see `plylab.specs`): the registered name, then OpenSpiel's own game
parameters, each checked against the engine's declared parameter types so a typo is one clear
line listing what the game accepts, never an engine abort mid-run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import cache

import pyspiel

from ..errors import UserError
from ..specs import parse_spec


@cache
def game_type(openspiel_name: str) -> pyspiel.GameType:
    """OpenSpiel's registered description of a game, without loading it (some loads print)."""
    for gt in pyspiel.registered_games():
        if gt.short_name == openspiel_name:
            return gt
    raise UserError(f"OpenSpiel has no game '{openspiel_name}'")


def parameter_types(openspiel_name: str) -> dict[str, object]:
    """OpenSpiel's declared parameters of a game with their defaults (whose types we coerce to)."""
    return dict(game_type(openspiel_name).parameter_specification)


def describe(defaults: Mapping[str, object], hidden: frozenset[str] = frozenset()) -> str:
    """`name=default` for each parameter a user may set, for error lines and `plylab games`."""
    shown = [f"{k}={format_value(v)}" for k, v in sorted(defaults.items()) if k not in hidden]
    return ", ".join(shown) or "none"


def format_value(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


INT_MAX = 2**31 - 1  # OpenSpiel stores game parameters as C++ int


def coerce(game: str, key: str, text: str, default: object, accepted: str) -> object:
    """A parameter's text as the type of its OpenSpiel default (bool, int, float or str)."""
    try:
        if isinstance(default, bool):
            lowered = text.strip().lower()
            if lowered in ("true", "1", "yes", "on"):
                return True
            if lowered in ("false", "0", "no", "off"):
                return False
            raise ValueError
        if isinstance(default, int):
            value = int(text)
            if not 0 <= value <= INT_MAX:  # OpenSpiel would build a broken game (or overflow), not refuse
                raise UserError(
                    f"game '{game}': parameter '{key}' must be between 0 and {INT_MAX} (got '{text}'); "
                    f"parameters: {accepted}"
                )
            return value
        if isinstance(default, float):
            return float(text)
    except ValueError:
        kind = {bool: "true or false", int: "an integer", float: "a number"}[type(default)]
        raise UserError(
            f"game '{game}': parameter '{key}' must be {kind} (got '{text}'); parameters: {accepted}"
        ) from None
    return text


def split_game(text: str) -> tuple[str, dict[str, str]]:
    """A game spec's registered name and its raw parameter texts."""
    spec = parse_spec(text, kind="game")
    return spec.name, dict(spec.options)


def bind_params(
    game: str, openspiel_name: str, raw: Mapping[str, str], hidden: frozenset[str] = frozenset()
) -> dict[str, object]:
    """Typed OpenSpiel parameters from a spec's options; UserError names every accepted one."""
    defaults = parameter_types(openspiel_name)
    accepted = describe(defaults, hidden)
    out: dict[str, object] = {}
    for key, text in raw.items():
        if key not in defaults or key in hidden:
            raise UserError(f"game '{game}' has no parameter '{key}'; parameters: {accepted}")
        out[key] = coerce(game, key, text, defaults[key], accepted)
    return out


# A board larger than this is refused before OpenSpiel allocates it (mnk:m=100000,n=100000 is 10^10
# cells). Every registered game's default is far below; a 300 x 300 board still fits.
MAX_BOARD_CELLS = 100_000
# OpenSpiel's parameter names for a board's sides; a lone `board_size` is a square's side.
_SIDES = ({"m", "n"}, {"rows", "columns"}, {"num_rows", "num_cols"}, {"height", "width"}, {"board_size"})


# What one game of a parametrised instance may build and store, counted in entries: each of its
# longest game's moves is stored with the legal moves it had and the moves before it (its history),
# so a game costs `longest x (longest + most legal moves)`. Every game OpenSpiel ships is under it
# (shogi, the largest, 5.6 x 10^8 by its 17,695-ply limit, is not parametrised past it); mnk 100 x 100
# is 2 x 10^8 (744 MB for one random game), 200 x 200 is 3.2 x 10^9 (4.2 GB) and is refused.
DEFAULT_PLAY_COST = 600_000_000


def play_cost_limit() -> int:
    """The most a parametrised game may cost (PLYLAB_GAME_LIMIT overrides the default)."""
    text = os.environ.get("PLYLAB_GAME_LIMIT", "")
    return int(text) if text.strip().isdigit() else DEFAULT_PLAY_COST


def play_cost(longest: int, widest: int) -> int:
    """Entries one game stores at most: `longest` plies, each with `widest` legal moves and its history."""
    return longest * (longest + widest)


def board_sides(params: Mapping[str, object]) -> list[int]:
    """Every board side `params` sets (some engines crash on a side of 0 instead of refusing it)."""
    names = set().union(*_SIDES)
    return [v for k, v in params.items() if k in names and isinstance(v, int) and not isinstance(v, bool)]


def board_cells(params: Mapping[str, object]) -> int:
    """The most cells any pair of board sides in `params` (defaults included) describes; 0 for none."""
    cells = 0
    for names in _SIDES:
        sides = [
            v for k, v in params.items() if k in names and isinstance(v, int) and not isinstance(v, bool)
        ]
        if len(sides) == 1:
            sides *= 2  # board_size: a square's side
        if sides:
            cells = max(cells, sides[0] * sides[1])
    return cells


def engine_message(exc: Exception | str) -> str:
    """OpenSpiel's complaint on one line, without its source path ('.../mnk.cc:42')."""
    text = " ".join(str(exc).split())
    return re.sub(r"^\S*\.(?:cc|h):\d+\s*", "", text) or "rejected by OpenSpiel"


def canonical(name: str, params: Mapping[str, object]) -> str:
    """One spelling per parametrised game (sorted keys): the key of caches and oracle tables."""
    if not params:
        return name
    return name + ":" + ",".join(f"{k}={format_value(v)}" for k, v in sorted(params.items()))
