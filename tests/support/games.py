"""Game helpers for tests."""

from __future__ import annotations

import random

import pyspiel

from plylab.games.chance import sample_chance


def past_chance(state: pyspiel.State, rng: random.Random) -> pyspiel.State:
    """`state` advanced over any chance nodes (in place), so a player is to move or the game is over."""
    while state.is_chance_node():
        state.apply_action(sample_chance(state, rng))
    return state
