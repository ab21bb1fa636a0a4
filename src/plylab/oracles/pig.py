"""Exact optimal play of Pig (OpenSpiel `pig`) by value iteration, as Neller and Presser computed it.

Neller & Presser, "Optimal Play of the Dice Game Pig", UMAP Journal 25(1), 2004: let P(i, j, k) be
the probability that the player to move wins with score i, the opponent's score j and turn total k.
Where i + k reaches the target the mover holds and wins (P = 1; OpenSpiel then offers only `stop`).
Otherwise P = max(P_roll, P_hold) with

    P_hold = 1 - P(j, i + k, 0)
    P_roll = (1/d) [ (1 - P(j, i, 0)) + sum over faces r = 2..d of P(i, j, k + r) ]

for a die of d faces (OpenSpiel's `diceoutcomes`; a 1 loses the turn total). The equations are
cyclic (both players may roll a 1 forever), so they are solved by value iteration until no value
moves by more than `TOLERANCE`; every update is one numpy expression over the whole (i, j, k) cube.
The default target (100) takes about a second; tables are cached on disk under the game's name.

What the table ignores: OpenSpiel's `horizon` (the game is cut after that many moves, 1000 by
default), which no sane game approaches; `piglet` (a coin instead of a die) is not offered.
Each decision is graded on the one scale (`oracles.graded`) by the mover's exact win probability
after rolling and after holding.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyspiel

from .graded import Grade
from .minimax import cache_dir

if TYPE_CHECKING:
    import numpy as np

ROLL, HOLD = 0, 1  # OpenSpiel's actions: `roll` and `stop`
TOLERANCE = 1e-12  # value iteration stops when no value moves by more than this
MAX_TARGET = 100  # the default target and smaller ones: a (target^2 x target) cube of floats
_STATE = re.compile(r"Scores: (\d+) (\d+), Turn total: (\d+)")


def offered(game: pyspiel.Game) -> bool:
    """Whether the table is offered for this parametrisation of `pig` (two players, a die, target <= 100)."""
    p = game.get_parameters()
    return (
        game.get_type().short_name == "pig"
        and int(p.get("players", 2)) == 2
        and not bool(p.get("piglet", False))
        and 1 <= int(p["winscore"]) <= MAX_TARGET
        and int(p["diceoutcomes"]) >= 2
    )


def backup(p: np.ndarray, faces: int) -> tuple[np.ndarray, np.ndarray]:
    """One application of the equations to the cube `p`: the win probability of rolling and of
    holding at every (i, j, k), the values after the move read from `p` (1 where the mover has won)."""
    import numpy as np  # here, not above: listing the games loads no numpy

    g, d = p.shape[0], faces
    ik = np.arange(g)[:, None] + np.arange(g)[None, :]  # i + k, an index where it is below g
    inside = ik < g
    at0 = p[:, :, 0]  # at0[i, j] = P(i, j, 0)
    # hold: 1 - P(j, i + k, 0), i.e. at0[j, i + k] arranged as [i, j, k]
    hold = np.where(inside[:, None, :], 1.0 - np.transpose(at0[:, np.where(inside, ik, 0)], (1, 0, 2)), 1.0)
    # roll: a 1 passes the turn (1 - P(j, i, 0)); a face r moves to k + r (1 where i + k + r >= g)
    padded = np.concatenate([p, np.ones((g, g, d + 1))], axis=2)
    faces_sum = sum(padded[:, :, r : r + g] for r in range(2, d + 1))
    roll = ((1.0 - at0.T)[:, :, None] + faces_sum) / d
    return roll, hold


def won(target: int) -> np.ndarray:
    """Where the mover has already reached the target with the turn total (i + k >= target)."""
    import numpy as np  # here, not above: listing the games loads no numpy

    i, k = np.arange(target)[:, None, None], np.arange(target)[None, None, :]
    return np.broadcast_to(i + k >= target, (target, target, target))


def solve(target: int, faces: int = 6, tolerance: float = TOLERANCE) -> tuple[np.ndarray, int]:
    """P[i, j, k] for 0 <= i, j, k < target (entries with i + k >= target are 1), and the sweeps taken."""
    import numpy as np  # here, not above: listing the games loads no numpy

    done = won(target)
    p = np.where(done, 1.0, 0.0)
    sweeps = 0
    while True:
        sweeps += 1
        roll, hold = backup(p, faces)
        new = np.where(done, 1.0, np.maximum(roll, hold))
        delta = float(np.max(np.abs(new - p)))
        p = new
        if delta <= tolerance:
            return p, sweeps


def rolls(p: np.ndarray, faces: int = 6) -> np.ndarray:
    """The optimal policy of the solved cube `p`: True where rolling is strictly better than holding."""
    import numpy as np  # here, not above: listing the games loads no numpy

    roll, hold = backup(p, faces)
    return np.asarray((roll > hold) & ~won(p.shape[0]))


@dataclass(frozen=True)
class PigState:
    """A decision of OpenSpiel's pig as the table indexes it: the mover's score, the other's, the turn total."""

    mine: int
    theirs: int
    turn: int


def read_state(state: pyspiel.State) -> PigState:
    """The (i, j, k) of an OpenSpiel pig state from its text ('Scores: 3 10, Turn total: 4')."""
    found = _STATE.search(str(state))
    if found is None:
        raise ValueError(f"not a pig state: {str(state)!r}")
    scores = (int(found.group(1)), int(found.group(2)))
    mover = state.current_player()
    return PigState(scores[mover], scores[1 - mover], int(found.group(3)))


class PigOracle:
    """Every decision of a game of Pig valued exactly: the mover's win probability after each move."""

    source = "value iteration (Neller & Presser 2004)"

    def __init__(self, target: int, faces: int, table: np.ndarray, sweeps: int, build_seconds: float) -> None:
        self.target, self.faces, self.table = target, faces, table
        self.sweeps, self.build_seconds = sweeps, build_seconds

    @classmethod
    def build(cls, target: int, faces: int = 6) -> PigOracle:
        start = time.perf_counter()
        table, sweeps = solve(target, faces)
        return cls(target, faces, table, sweeps, time.perf_counter() - start)

    @classmethod
    def load_or_build(cls, game: pyspiel.Game, key: str) -> PigOracle:
        """The cached table of the game named `key` (canonical spec), built on first use."""
        import numpy as np  # here, not above: listing the games loads no numpy

        p = game.get_parameters()
        target, faces = int(p["winscore"]), int(p["diceoutcomes"])
        digest = hashlib.sha256(f"{key}|{target}|{faces}|{TOLERANCE}".encode()).hexdigest()[:10]
        path = cache_dir() / f"pig-{target}-{faces}-{digest}.npz"
        if path.exists():
            try:
                with np.load(path) as data:
                    return cls(
                        target, faces, data["table"], int(data["sweeps"]), float(data["build_seconds"])
                    )
            except (OSError, ValueError, KeyError):
                pass  # a torn file: rebuild it
        table = cls.build(target, faces)
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
        np.savez_compressed(tmp, table=table.table, sweeps=table.sweeps, build_seconds=table.build_seconds)
        os.replace(tmp, path)
        return table

    def win(self, mine: int, theirs: int, turn: int) -> float:
        """P(mine, theirs, turn): the mover's win probability at a decision, playing on optimally."""
        if mine + turn >= self.target:
            return 1.0
        return float(self.table[mine, theirs, turn])

    def action_values(self, state: pyspiel.State) -> dict[int, float]:
        """The mover's exact win probability after each legal action of a decision."""
        s, g, d = read_state(state), self.target, self.faces
        out: dict[int, float] = {}
        for action in state.legal_actions():
            if action == HOLD:
                out[HOLD] = 1.0 if s.mine + s.turn >= g else 1.0 - self.win(s.theirs, s.mine + s.turn, 0)
            else:
                rolled = [self.win(s.mine, s.theirs, s.turn + r) for r in range(2, d + 1)]
                out[ROLL] = ((1.0 - self.win(s.theirs, s.mine, 0)) + sum(rolled)) / d
        return out

    def grade(self, state: pyspiel.State, action: int) -> Grade:
        """The decision on the one scale: each move's exact win probability (an expected score)."""
        return Grade(expected=self.action_values(state), source=self.source, exact=True)

    def policy(self, state: pyspiel.State) -> dict[int, float]:
        """The optimal policy: the best move (both, evenly, where they are worth the same)."""
        values = self.action_values(state)
        top = max(values.values())
        best = [a for a, v in values.items() if top - v <= 1e-9]
        return {a: 1.0 / len(best) for a in best}
