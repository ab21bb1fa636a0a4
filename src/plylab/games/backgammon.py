"""Backgammon (OpenSpiel `backgammon`), graded by GNU Backgammon (`oracles.gnubg`).

Registered as the generic games are (OpenSpiel's surface and its move text), with gnubg's cubeless
equity as its ground truth: an engine, so a loss is relative to gnubg's evaluation at its stated
level (gnubg's own default analysis level, 2-ply; `--score plies=0` for its nets alone), not a proof.
OpenSpiel's backgammon has no doubling cube, so there is no cube decision to grade.
Without gnubg installed the game is played unscored, with one line saying so.
"""

from __future__ import annotations

import sys

from ..oracles.gnubg import INSTALL, GnubgOracle, gnubg_oracle, parse_level
from .base import GameDef, GroundTruth, register_game
from .generic import game_def
from .params import game_type

_WARNED: list[bool] = []


def gnubg_engine(game: GameDef, limit: str = "") -> GnubgOracle | None:
    """gnubg at the run's level (`limit`: `--score`'s text, "" for gnubg's default analysis level,
    "plies=0" for its nets alone); None, with one line on stderr, where gnubg is not installed."""
    oracle = gnubg_oracle(parse_level(limit))
    if oracle is None and not _WARNED:
        _WARNED.append(True)
        print(f"backgammon is played unscored: gnubg is not installed; {INSTALL}", file=sys.stderr)
    return oracle


GNUBG_TRUTH = GroundTruth("engine", "gnubg", engine=gnubg_engine)

GAME = register_game(game_def(game_type("backgammon")))
GAME.ground_truth = GNUBG_TRUTH


def derived_truth(game: GameDef) -> GroundTruth | None:
    """Every scoring type is graded; hyper-backgammon (three checkers a side) is not: gnubg's nets
    are for the 15-checker game."""
    return None if game.engine.get_parameters().get("hyper_backgammon") else GNUBG_TRUTH


GAME.derived_truth = derived_truth
GAME.oracle_missing = "no ground truth: gnubg grades 15-checker backgammon, not hyper-backgammon"
