"""Suites: fixed positions with their ground truth, answered one call each by any player.

`content` is what a suite holds and `file` reads and writes it, content-hashed; `kinds` is what
differs between kinds of suite, chosen once from the file's header: positions of moves (`moves`,
built by `build`) and Clue deduction snapshots (`deduction`), both registered here; `study` runs a
suite on the one driver into the store; `report` is its tables (per player, per pair).
"""

from .deduction import DEDUCTION
from .kinds import register
from .moves import MOVES

register(MOVES)  # first: the default kind, and the report's first table
register(DEDUCTION)
