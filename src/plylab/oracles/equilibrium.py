"""A Nash equilibrium of a small two-player zero-sum game of hidden information, and every decision
graded against it.

There is no minimax value where a player cannot see the whole state, but there is the game value of
a Nash equilibrium, and for small games OpenSpiel computes one in C++: CFR+ (`pyspiel.CFRPlusSolver`)
is run until its average strategy's exploitability (`pyspiel.exploitability`, half the NashConv) is
at most TARGET of the game's utility range, and at least WORK information-set updates are done (a
small game is solved well past the target), or MAX_ITERATIONS is reached; the source says which.
The result is deterministic: same game, same iterations, same tables.

An action's value at an information set I of player p: p's expected payoff after it when both sides
then follow the equilibrium, averaged over the histories in I weighted by the reach of the opponent
and chance under the equilibrium (p's own reach is the same for every history of I). Where the
equilibrium reaches I with probability 0 (the opponent would never have played into it), the
histories are weighted by chance alone: the belief of a player who knows only the deal. Each entry
says which (`belief`: "equilibrium" or "chance").

Tables are built once (a tree walk in Python after the solver, seconds for Liar's dice) and cached
on disk as JSON under the game's canonical name, like the minimax tables. Games are offered where
`BOUNDS` gives an upper bound on their information sets under the limit (PLYLAB_EQUILIBRIUM_LIMIT,
default 100,000): Kuhn poker (12), Leduc poker (936), Liar's dice with one die each (24,576).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pyspiel

from .cachefile import building, read_cache, rebuilding, write_whole
from .graded import Grade
from .minimax import cache_dir

TARGET = 1e-3  # exploitability reached, as a fraction of the game's utility range
MAX_ITERATIONS = 10_000
WORK = 1_000_000  # information-set updates the solver does at least (iterations x information sets)
DEFAULT_LIMIT = 100_000  # information sets
PLAYED = 0.05  # an action the equilibrium plays: its probability above this
SOLVER = "cfr+"
PROBABILITY_SLACK = 1e-6  # how far a cached information set's probabilities may sum from one
FORMAT = 1  # bumped when the cached table's layout changes (an old file is then rebuilt)


def limit() -> int:
    text = os.environ.get("PLYLAB_EQUILIBRIUM_LIMIT", "")
    return int(text) if text.strip().isdigit() else DEFAULT_LIMIT


def _p(game: pyspiel.Game) -> dict[str, Any]:
    return cast(dict[str, Any], game.get_parameters())


def _liars_dice(game: pyspiel.Game) -> int:
    """Own dice (ordered) times the bid sequences (any increasing subset of the bids)."""
    params = _p(game)
    dice, sides = int(params.get("numdice", 1)), int(params.get("dice_sides", 6))
    return int(sides**dice * 2 ** (2 * dice * sides))


# Games whose information sets are bounded by a cheap formula of their parameters.
BOUNDS: dict[str, Callable[[pyspiel.Game], int]] = {
    "kuhn_poker": lambda g: 12,
    "leduc_poker": lambda g: 936,
    "liars_dice": _liars_dice,
}


def bound(game: pyspiel.Game) -> int | None:
    """Upper bound on the information sets of `game`; None where no equilibrium is offered."""
    t = game.get_type()
    estimate = BOUNDS.get(t.short_name)
    if estimate is None or game.num_players() != 2 or t.utility != pyspiel.GameType.Utility.ZERO_SUM:
        return None
    return estimate(game)


def fits(game: pyspiel.Game, max_infosets: int | None = None) -> bool:
    b = bound(game)
    return b is not None and b <= (limit() if max_infosets is None else max_infosets)


def span(game: pyspiel.Game) -> float:
    return float(game.max_utility() - game.min_utility())


def cache_path(key: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9_.=-]+", "_", key)[:80]
    digest = hashlib.sha256(f"{key}|{SOLVER}|{TARGET}|{FORMAT}".encode()).hexdigest()[:10]
    return cache_dir() / f"equilibrium-{slug}-{digest}.json"


@dataclass(frozen=True)
class InfoSet:
    """The equilibrium at one information set: each legal action's probability and value."""

    policy: dict[int, float]
    values: dict[int, float]
    belief: str  # "equilibrium": weighted by the equilibrium's reach; "chance": it never reaches here


PolicyTable = dict[str, list[tuple[int, float]]]


SOLVERS: dict[str, Callable[[pyspiel.Game], Any]] = {
    "cfr+": pyspiel.CFRPlusSolver,  # the oracle's
    "cfr": pyspiel.CFRSolver,  # vanilla CFR: another equilibrium, to measure how stable the scores are
}


# Told after each solver iteration: (iterations done, iterations the build needs at least so far: the
# WORK minimum once the table's size is known, MAX_ITERATIONS once that is past and the target is not met).
BuildProgress = Callable[[int, int], None]


def solve(
    game: pyspiel.Game,
    target: float,
    max_iterations: int = MAX_ITERATIONS,
    solver_name: str = SOLVER,
    progress: BuildProgress | None = None,
) -> tuple[PolicyTable, float, int]:
    """CFR+ until the average strategy's exploitability is at most `target` (absolute units) and
    the solver has done WORK information-set updates (so a small game is solved well past the
    target for little time: Kuhn poker to ~2e-5 of its range, Leduc to ~1e-5; Liar's dice stops
    at the target), or at `max_iterations`.

    Exploitability is checked at iterations growing by half each time (on Liar's dice one check
    costs as much as twenty iterations), so the first sufficient iteration is overshot by at most 50%."""
    solver = SOLVERS[solver_name](game)
    done, check, goal = 0, 8, 8
    while True:
        while done < check:
            solver.evaluate_and_update_policy()
            done += 1
            if progress is not None:
                progress(done, goal)
        policy = solver.tabular_average_policy()
        table = dict(policy.policy_table())
        minimum = min(max_iterations, -(-WORK // max(1, len(table))))
        goal = minimum if done < minimum else max_iterations
        if done >= minimum:
            reached = float(pyspiel.exploitability(game, policy))
            if reached <= target or done >= max_iterations:
                return table, reached, done
        check = min(max_iterations, max(check + 1, int(check * 1.5), minimum if done < minimum else 0))


def action_values(game: pyspiel.Game, table: PolicyTable) -> tuple[dict[str, InfoSet], list[float]]:
    """Each information set's action values under `table` (see the module docstring), and the game
    value for each seat. One walk of the whole tree, no history pruned (a value is needed even where
    the equilibrium never goes)."""
    weighted: dict[str, list[Any]] = {}  # infoset -> [sum reach, {a: sum reach*v}, sum chance, {a: ...}]

    def walk(state: pyspiel.State, opp: tuple[float, float], chance: float) -> float:
        """Player 0's expected payoff from `state`; `opp[p]`: the reach of everyone but p (no chance)."""
        if state.is_terminal():
            return float(state.returns()[0])
        if state.is_chance_node():
            return math.fsum(p * walk(state.child(a), opp, chance * p) for a, p in state.chance_outcomes())
        mover = state.current_player()
        key = state.information_state_string(mover)
        probs = dict(table[key])
        acc = weighted.setdefault(key, [0.0, {}, 0.0, {}])
        reach = opp[mover] * chance
        acc[0] += reach
        acc[2] += chance
        total = 0.0
        sign = 1.0 if mover == 0 else -1.0
        for a in state.legal_actions():
            pa = probs.get(a, 0.0)
            child_opp = (opp[0], opp[1] * pa) if mover == 0 else (opp[0] * pa, opp[1])
            v = walk(state.child(a), child_opp, chance)
            acc[1][a] = acc[1].get(a, 0.0) + reach * sign * v
            acc[3][a] = acc[3].get(a, 0.0) + chance * sign * v
            total += pa * v
        return total

    root = walk(game.new_initial_state(), (1.0, 1.0), 1.0)
    out: dict[str, InfoSet] = {}
    for key, (reach, by_reach, chance, by_chance) in weighted.items():
        probs = dict(table[key])
        if reach > 0.0:
            values, belief = {a: s / reach for a, s in by_reach.items()}, "equilibrium"
        else:
            values, belief = {a: s / chance for a, s in by_chance.items()}, "chance"
        out[key] = InfoSet({a: float(probs.get(a, 0.0)) for a in values}, values, belief)
    return out, [root, -root]


class EquilibriumOracle:
    """The equilibrium's probability and value of every legal action at the mover's information set.

    `grade` uses the whole state only to find the mover's information set (what the mover knows);
    the hidden cards never reach a player."""

    def __init__(
        self,
        game: pyspiel.Game,
        infosets: dict[str, InfoSet],
        value: list[float],
        exploitability: float,
        iterations: int,
        build_seconds: float = 0.0,
        solver: str = SOLVER,
    ) -> None:
        self.game = game
        self.infosets = infosets
        self.value = value
        self.exploitability = exploitability
        self.iterations = iterations
        self.build_seconds = build_seconds
        self.solver = solver
        self.span = span(game)
        self.target = TARGET * self.span
        self.source = f"{solver} {iterations} iterations, exploitability {exploitability:.2e}"

    @classmethod
    def build(
        cls,
        game: pyspiel.Game,
        target: float | None = None,
        solver: str = SOLVER,
        progress: BuildProgress | None = None,
    ) -> EquilibriumOracle:
        start = time.perf_counter()
        goal = TARGET * span(game) if target is None else target
        table, reached, iterations = solve(game, goal, solver_name=solver, progress=progress)
        infosets, value = action_values(game, table)
        return cls(game, infosets, value, reached, iterations, time.perf_counter() - start, solver)

    def to_json(self, key: str) -> dict[str, Any]:
        return {
            "game": key,
            "format": FORMAT,
            "solver": self.solver,
            "target": TARGET,
            "iterations": self.iterations,
            "exploitability": self.exploitability,
            "value": self.value,
            "build_seconds": self.build_seconds,
            "infosets": {
                k: {
                    "policy": {str(a): p for a, p in sorted(e.policy.items())},
                    "values": {str(a): v for a, v in sorted(e.values.items())},
                    "belief": e.belief,
                }
                for k, e in sorted(self.infosets.items())
            },
        }

    @classmethod
    def from_json(cls, game: pyspiel.Game, data: dict[str, Any]) -> EquilibriumOracle:
        infosets = {
            k: InfoSet(
                {int(a): float(p) for a, p in e["policy"].items()},
                {int(a): float(v) for a, v in e["values"].items()},
                str(e["belief"]),
            )
            for k, e in data["infosets"].items()
        }
        return cls(
            game,
            infosets,
            [float(v) for v in data["value"]],
            float(data["exploitability"]),
            int(data["iterations"]),
            float(data.get("build_seconds", 0.0)),
            str(data.get("solver", SOLVER)),
        )

    @classmethod
    def load_or_build(
        cls, game: pyspiel.Game, key: str, progress: BuildProgress | None = None
    ) -> EquilibriumOracle:
        """The cached equilibrium of the game named `key` (its canonical spec), built on first use
        (`progress` told of each solver iteration)."""
        path = cache_path(key)
        with building(path):
            cached = cls.cached(game, key)
            if cached is not None:
                return cached
            oracle = cls.build(game, progress=progress)
            write_whole(path, json.dumps(oracle.to_json(key)))
            return oracle

    @classmethod
    def cached(cls, game: pyspiel.Game, key: str) -> EquilibriumOracle | None:
        """The equilibrium of `key` from the disk cache; None where it is not built yet.

        A cache file is believed only when it holds the whole equilibrium of this game (`damage`):
        anything less is said in one line on stderr and left to be built again; a path that is no
        regular file (a FIFO would block the read for ever) is refused in one line."""
        path = cache_path(key)
        text = read_cache(path)
        if text is None:
            return None
        why: str | None = "not JSON"
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        else:
            why = damage(data, game, key)
        if why is None:
            return cls.from_json(game, data)
        rebuilding(path, why)
        return None

    def __len__(self) -> int:
        return len(self.infosets)

    def at(self, state: pyspiel.State) -> tuple[str, InfoSet]:
        """The mover's information set and the equilibrium there."""
        if state.is_terminal() or state.is_chance_node():
            raise ValueError("only a decision of a player has an information set to grade")
        key = str(state.information_state_string(state.current_player()))
        return key, self.infosets[key]

    def policy(self, state: pyspiel.State) -> dict[int, float]:
        """The equilibrium's probability of each legal action at the mover's information set."""
        return self.at(state)[1].policy

    def grade(self, state: pyspiel.State, action: int) -> Grade:
        key, entry = self.at(state)
        return Grade(
            expected=dict(entry.values),
            unit="payoff",
            span=self.span,
            source=self.source,
            exact=False,
            tolerance=self.target,
            detail={
                "infoset": key,
                "policy": {str(a): p for a, p in sorted(entry.policy.items())},
                "belief": entry.belief,
                "played": entry.policy.get(action, 0.0) > PLAYED,
            },
        )


def game_infosets(game: pyspiel.Game) -> dict[str, set[int]]:
    """Every information set of `game` with its legal actions, from OpenSpiel's own walk of the tree
    (a CFR solver's table before any iteration: C++, under a second for Liar's dice)."""
    table = pyspiel.CFRPlusSolver(game).tabular_average_policy().policy_table()
    return {str(k): {int(a) for a, _ in v} for k, v in table.items()}


def _finite(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _actions(entry: dict[str, Any], field: str) -> dict[int, Any] | None:
    """An entry's `policy` or `values` by action number; None where it is no such mapping."""
    found = entry.get(field)
    if not isinstance(found, dict):
        return None
    try:
        return {int(a): x for a, x in found.items()}
    except ValueError:
        return None


def damage(data: object, game: pyspiel.Game, key: str) -> str | None:
    """Why a cache file's JSON is not the whole equilibrium of `game` (named `key`), in a few words;
    None where it is: the game and format, a finite value per seat, the solver's figures, and at every
    information set of the game (no more, no fewer) every legal action (no other) with a finite value
    and a probability, the probabilities summing to one."""
    if not isinstance(data, dict):
        return "not a JSON object"
    if data.get("game") != key:
        return f"it holds game {str(data.get('game'))[:60]!r}"
    if data.get("format") != FORMAT:
        return f"format {str(data.get('format'))[:20]}, not {FORMAT}"
    value = data.get("value")
    if not isinstance(value, list) or len(value) != game.num_players() or not all(map(_finite, value)):
        return f"its value is not {game.num_players()} finite numbers"
    exploitability, iterations = data.get("exploitability"), data.get("iterations")
    if not _finite(exploitability) or cast(float, exploitability) < 0:
        return "its exploitability is not a finite number of at least 0"
    if not isinstance(iterations, int) or isinstance(iterations, bool) or iterations < 1:
        return "its iterations are not a positive whole number"
    if data.get("solver", SOLVER) not in SOLVERS or not _finite(data.get("build_seconds", 0.0)):
        return "its solver or build time is unknown"
    infosets = data.get("infosets")
    if not isinstance(infosets, dict):
        return "no information sets"
    expected = game_infosets(game)
    if missing := len(expected.keys() - infosets.keys()):
        return f"{missing:,} of the game's {len(expected):,} information sets missing"
    if extra := len(infosets.keys() - expected.keys()):
        return f"{extra:,} information sets the game does not have"
    for name, legal in expected.items():
        entry = infosets[name]
        if not isinstance(entry, dict) or entry.get("belief") not in ("equilibrium", "chance"):
            return f"information set {name[:60]!r} is malformed"
        policy, values = _actions(entry, "policy"), _actions(entry, "values")
        if policy is None or values is None or set(policy) != legal or set(values) != legal:
            return f"information set {name[:60]!r} does not list exactly its legal actions"
        if not all(_finite(p) and 0.0 <= p <= 1.0 for p in policy.values()) or not all(
            map(_finite, values.values())
        ):
            return f"information set {name[:60]!r} has a probability or value that is no finite number"
        if abs(math.fsum(policy.values()) - 1.0) > PROBABILITY_SLACK:
            return f"information set {name[:60]!r} has probabilities that do not sum to one"
    return None


def is_equilibrium(oracle: object) -> bool:
    return isinstance(oracle, EquilibriumOracle)
