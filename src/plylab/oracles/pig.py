"""Exact optimal play of Pig (OpenSpiel `pig`) by value iteration, as Neller and Presser computed it,
under every parameter of OpenSpiel's game that changes it.

Neller & Presser, "Optimal Play of the Dice Game Pig", UMAP Journal 25(1), 2004: let P(i, j, k) be
the probability that the player to move wins with score i, the opponent's score j and turn total k.
Where i + k reaches the target the mover holds and wins (P = 1; OpenSpiel then offers only `stop`).
Otherwise P = max(P_roll, P_hold) with

    P_hold = 1 - P(j, i + k, 0)
    P_roll = (1/d) (1 - P(j, i, 0)) + p * sum over the other outcomes r of P(i, j, k + r)

for a die of d faces (OpenSpiel's `diceoutcomes`: a 1 loses the turn total, a face r >= 2 adds r, each
with p = 1/d) or `piglet` (a 1 in d loses the turn total, anything else adds 1: p = (d - 1)/d).

OpenSpiel also ends the game after `horizon` decisions (rolls and stops; 1000 by default), a draw
(each seat's return 0, worth 1/2 on the one scale) where nobody has reached the target. So the value
depends on the decisions left, m: P_m is the equations above with P_{m-1} on the right, P_1 is 1/2
where the mover has not already won (a last roll ends the game before the die lands; a last stop that
does not reach the target draws), and P_0 = 1/2. P_m is value iteration's m-th sweep from P_1, and it
settles: from the sweep where no value moves by more than `TOLERANCE` on (`PigOracle.converged`, about
500 sweeps at the default target) P_m is the limit, the cyclic game's solution. A decision is valued
with the layer of its decisions left (OpenSpiel's horizon minus the decisions made), computed on first
use; the limit is cached on disk per target and die, shared by every horizon. Each decision is graded
on the one scale (`oracles.graded`) by the mover's exact expected score after rolling and after holding.

Not offered: more than two players (no single value: each seat's best reply depends on the others');
a target over `MAX_TARGET` (a target^3 cube of floats per layer).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyspiel

from .graded import Grade
from .minimax import cache_dir

if TYPE_CHECKING:
    import numpy as np

ROLL, HOLD = 0, 1  # OpenSpiel's actions: `roll` and `stop`
TOLERANCE = 1e-12  # value iteration stops when no value moves by more than this
MAX_TARGET = 100  # the default target and smaller ones: a (target^2 x target) cube of floats
DRAW = 0.5  # a game cut at the horizon, nobody at the target: each seat's return 0, half a win
LAYER_BUDGET = 2**24  # floats kept of the layers below the limit (128 MiB); beyond it, every n-th layer
_STATE = re.compile(r"Scores: (\d+) (\d+), Turn total: (\d+)")


@dataclass(frozen=True)
class PigRules:
    """What the table depends on: the target, the die (`faces`, or a `piglet` coin of 1 in `faces`
    to lose) and the horizon (decisions before the game is cut, a draw)."""

    target: int
    faces: int = 6
    piglet: bool = False
    horizon: int = 1000

    @property
    def bust(self) -> float:
        """The chance a roll loses the turn total (a 1)."""
        return 1.0 / self.faces

    @property
    def gains(self) -> tuple[int, ...]:
        """The points every other outcome of a roll adds to the turn total (each `gain_chance`)."""
        return (1,) if self.piglet else tuple(range(2, self.faces + 1))

    @property
    def gain_chance(self) -> float:
        """The chance of each of `gains`."""
        return 1.0 - self.bust if self.piglet else self.bust


def rules_of(game: pyspiel.Game) -> PigRules:
    p = game.get_parameters()
    return PigRules(int(p["winscore"]), int(p["diceoutcomes"]), bool(p["piglet"]), int(p["horizon"]))


def offered(game: pyspiel.Game) -> bool:
    """Whether the table is offered for this parametrisation of `pig` (two players, target <= 100)."""
    p = game.get_parameters()
    return (
        game.get_type().short_name == "pig"
        and int(p.get("players", 2)) == 2
        and 1 <= int(p["winscore"]) <= MAX_TARGET
        and int(p["diceoutcomes"]) >= 2
        and int(p["horizon"]) >= 1
    )


def backup(p: np.ndarray, rules: PigRules) -> tuple[np.ndarray, np.ndarray]:
    """One application of the equations to the cube `p` (the values with one decision fewer left):
    the value of rolling and of holding at every (i, j, k), 1 where the move reaches the target."""
    import numpy as np  # here, not above: listing the games loads no numpy

    g = p.shape[0]
    ik = np.arange(g)[:, None] + np.arange(g)[None, :]  # i + k, an index where it is below g
    inside = ik < g
    at0 = p[:, :, 0]  # at0[i, j] = P(i, j, 0)
    # hold: 1 - P(j, i + k, 0), i.e. at0[j, i + k] arranged as [i, j, k]
    hold = np.where(inside[:, None, :], 1.0 - np.transpose(at0[:, np.where(inside, ik, 0)], (1, 0, 2)), 1.0)
    # roll: a 1 passes the turn (1 - P(j, i, 0)); a gain r moves to k + r (1 where i + k + r >= g)
    padded = np.concatenate([p, np.ones((g, g, max(rules.gains)))], axis=2)
    gained = sum(padded[:, :, r : r + g] for r in rules.gains)
    roll = rules.bust * (1.0 - at0.T)[:, :, None] + rules.gain_chance * gained
    return roll, hold


def won(target: int) -> np.ndarray:
    """Where the mover has already reached the target with the turn total (i + k >= target)."""
    import numpy as np  # here, not above: listing the games loads no numpy

    i, k = np.arange(target)[:, None, None], np.arange(target)[None, None, :]
    return np.broadcast_to(i + k >= target, (target, target, target))


def last_layer(target: int) -> np.ndarray:
    """P_1: one decision left, worth a draw unless the mover has already won."""
    import numpy as np  # here, not above: listing the games loads no numpy

    return np.where(won(target), 1.0, DRAW)


def sweep(p: np.ndarray, rules: PigRules) -> np.ndarray:
    """P_m from P_{m-1} (m >= 2): the better of rolling and holding, 1 where the mover has won."""
    import numpy as np  # here, not above: listing the games loads no numpy

    roll, hold = backup(p, rules)
    return np.where(won(p.shape[0]), 1.0, np.maximum(roll, hold))


def solve(
    target: int, faces: int = 6, tolerance: float = TOLERANCE, piglet: bool = False
) -> tuple[np.ndarray, int]:
    """The limit P (0 <= i, j, k < target; 1 where i + k >= target) and the sweeps from P_1 to it."""
    import numpy as np  # here, not above: listing the games loads no numpy

    rules = PigRules(target, faces, piglet)
    p, sweeps = last_layer(target), 0
    while True:
        new = sweep(p, rules)
        sweeps += 1
        delta = float(np.max(np.abs(new - p)))
        p = new
        if delta <= tolerance:
            return p, sweeps


def rolls(p: np.ndarray, faces: int = 6, piglet: bool = False) -> np.ndarray:
    """The optimal policy of the solved cube `p`: True where rolling is strictly better than holding."""
    import numpy as np  # here, not above: listing the games loads no numpy

    roll, hold = backup(p, PigRules(p.shape[0], faces, piglet))
    return np.asarray((roll > hold) & ~won(p.shape[0]))


@dataclass(frozen=True)
class PigState:
    """A decision of OpenSpiel's pig as the table indexes it: the mover's score, the other's, the turn
    total, and the decisions left before the horizon."""

    mine: int
    theirs: int
    turn: int
    left: int = 1000


def read_state(state: pyspiel.State) -> PigState:
    """The (i, j, k) of an OpenSpiel pig state from its text ('Scores: 3 10, Turn total: 4') and the
    decisions left (the game's horizon minus the decisions, not dice, in its history)."""
    found = _STATE.search(str(state))
    if found is None:
        raise ValueError(f"not a pig state: {str(state)!r}")
    scores = (int(found.group(1)), int(found.group(2)))
    mover = state.current_player()
    made = sum(1 for step in state.full_history() if step.player >= 0)
    horizon = int(state.get_game().get_parameters()["horizon"])
    return PigState(scores[mover], scores[1 - mover], int(found.group(3)), horizon - made)


class PigOracle:
    """Every decision of a game of Pig valued exactly: the mover's expected score after each move."""

    source = "value iteration (Neller & Presser 2004), layered by OpenSpiel's horizon"

    def __init__(
        self,
        rules: PigRules,
        limit: tuple[int, np.ndarray] | None = None,
        path: Path | None = None,
        build_seconds: float = 0.0,
    ) -> None:
        """`limit`: (the layer from which P_m no longer moves, that layer), where already known (the
        disk cache at `path`, written when it is first found)."""
        self.rules, self.target, self.faces = rules, rules.target, rules.faces
        self.build_seconds, self._path, self._limit = build_seconds, path, limit
        self._layers = {1: last_layer(rules.target)}  # P_1, then every `_every`-th layer computed
        self._last: tuple[int, np.ndarray] | None = None
        kept = min(rules.horizon, 600) * rules.target**3
        self._every = max(1, math.ceil(kept / LAYER_BUDGET))

    @classmethod
    def build(cls, rules: PigRules) -> PigOracle:
        """The table with its limit solved now (the whole cyclic game, every horizon's far layers)."""
        start = time.perf_counter()
        table, sweeps = solve(rules.target, rules.faces, piglet=rules.piglet)
        return cls(rules, (sweeps + 1, table), build_seconds=time.perf_counter() - start)  # P_(sweeps+1)

    @classmethod
    def load_or_build(cls, game: pyspiel.Game) -> PigOracle:
        """The game's table: its limit read from the disk cache (shared by every horizon), or found
        on first use and cached then; the layers near the horizon computed as they are asked for."""
        import numpy as np  # here, not above: listing the games loads no numpy

        r = rules_of(game)
        digest = hashlib.sha256(f"layers|{r.target}|{r.faces}|{r.piglet}|{TOLERANCE}".encode()).hexdigest()[
            :10
        ]
        path = cache_dir() / f"pig-{r.target}-{r.faces}{'-piglet' if r.piglet else ''}-{digest}.npz"
        if path.exists():
            try:
                with np.load(path) as data:
                    return cls(r, (int(data["converged"]), data["table"]), path)
            except (OSError, ValueError, KeyError):
                pass  # a torn file: found again on first use
        return cls(r, None, path)

    @property
    def converged(self) -> int:
        """The decisions left from which the values no longer move (found now if not yet known)."""
        return self._limit[0] if self._limit is not None else self._find_limit()[0]

    @property
    def sweeps(self) -> int:
        """Sweeps of value iteration from P_1 to the limit."""
        return self.converged - 1

    @property
    def table(self) -> np.ndarray:
        """The limit: the values with many decisions left, the cyclic game's solution."""
        return self._limit[1] if self._limit is not None else self._find_limit()[1]

    def _find_limit(self) -> tuple[int, np.ndarray]:
        while self._limit is None:
            self.layer(max(self._layers) + 1000)
        return self._limit

    def layer(self, left: int) -> np.ndarray:
        """P_left: every (i, j, k) valued with `left` >= 1 decisions left."""
        import numpy as np  # here, not above: listing the games loads no numpy

        if self._limit is not None and left >= self._limit[0]:
            return self._limit[1]
        if self._last is not None and self._last[0] == left:
            return self._last[1]
        start = max(m for m in self._layers if m <= left)
        p = self._layers[start]
        for m in range(start + 1, left + 1):
            new = sweep(p, self.rules)
            if float(np.max(np.abs(new - p))) <= TOLERANCE:
                self._settle(m, new)
                return new
            if m % self._every == 0:
                self._layers[m] = new
            p = new
        self._last = (left, p)
        return p

    def _settle(self, m: int, table: np.ndarray) -> None:
        """The limit found at layer `m`: kept, and written to the disk cache."""
        import numpy as np  # here, not above: listing the games loads no numpy

        self._limit = (m, table)
        if self._path is not None:
            tmp = self._path.with_name(f"{self._path.stem}.{os.getpid()}.tmp.npz")
            np.savez_compressed(tmp, table=table, converged=m)
            os.replace(tmp, self._path)

    def win(self, mine: int, theirs: int, turn: int, left: int | None = None) -> float:
        """P_left(mine, theirs, turn): the mover's expected score at a decision, playing on optimally
        (`left`: decisions left; None: the limit, far from the horizon)."""
        if mine + turn >= self.target:
            return 1.0
        p = self.table if left is None else self.layer(left)
        return float(p[mine, theirs, turn])

    def action_values(self, state: pyspiel.State) -> dict[int, float]:
        """The mover's exact expected score after each legal action of a decision."""
        s, g = read_state(state), self.target
        after = s.left - 1  # decisions left once this one is made

        def value(mine: int, theirs: int, turn: int) -> float:
            return 1.0 if mine + turn >= g else DRAW if after == 0 else self.win(mine, theirs, turn, after)

        out: dict[int, float] = {}
        for action in state.legal_actions():
            if action == HOLD:
                out[HOLD] = 1.0 if s.mine + s.turn >= g else 1.0 - value(s.theirs, s.mine + s.turn, 0)
            elif after == 0:  # the last decision: the game ends before the die lands
                out[ROLL] = DRAW
            else:
                gained = sum(value(s.mine, s.theirs, s.turn + r) for r in self.rules.gains)
                out[ROLL] = (
                    self.rules.bust * (1.0 - value(s.theirs, s.mine, 0)) + self.rules.gain_chance * gained
                )
        return out

    def grade(self, state: pyspiel.State, action: int) -> Grade:
        """The decision on the one scale: each move's exact expected score."""
        return Grade(expected=self.action_values(state), source=self.source, exact=True)

    def policy(self, state: pyspiel.State) -> dict[int, float]:
        """The optimal policy: the best move (both, evenly, where they are worth the same)."""
        values = self.action_values(state)
        top = max(values.values())
        best = [a for a, v in values.items() if top - v <= 1e-9]
        return {a: 1.0 / len(best) for a in best}
