"""Chance moves (backgammon's dice, pig's die) are the harness's, drawn from the job's seed.

So a game with chance nodes replays exactly: same job, same rolls, whichever players sit down.
"""

from __future__ import annotations

import random

import pyspiel


def chance_stream(job_seed: int) -> random.Random:
    """The job's own stream of chance outcomes, independent of every player's stream."""
    return random.Random(f"chance:{job_seed}")  # str seeds are stable across processes


def sample_chance(state: pyspiel.State, rng: random.Random) -> int:
    """One outcome of a chance node, drawn with the engine's probabilities."""
    outcomes, probs = zip(*state.chance_outcomes())
    return int(rng.choices(outcomes, weights=probs)[0])
