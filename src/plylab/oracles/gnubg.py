"""Backgammon graded by GNU Backgammon's neural nets on the one scale: the mover's cubeless equity.

Debian's `gnubg` (1.07, installed by `make engines`) runs in a subprocess with its embedded Python
(`gnubg -t -q -p`): a small server script reads positions as JSON lines and answers each with
gnubg's five outcome probabilities (`gnubg.evaluate`: win, win gammon, win backgammon, lose gammon,
lose backgammon, for the side on roll). Chosen over PyPI's `gnubg-nn` bindings, which are alpha
releases built from source; the Debian package is the released engine the community analyses with.

A checker play is graded by the position it leads to, never by its text (OpenSpiel writes
`13/7/3` where gnubg writes `13/3`): every legal OpenSpiel action is applied, the position after it
is evaluated with the opponent on roll, and the mover's equity is minus the opponent's. OpenSpiel's
backgammon has no doubling cube, so the equity is cubeless; it is counted as the game scores
(`scoring_type`): `winloss_scoring` (the default) 2p - 1, `enable_gammons` adding gammons,
`full_scoring` adding backgammons too (gnubg's cubeless money equity). A double is two OpenSpiel
decisions (two checkers each): the first half is valued by the best completion of the turn, so the
two losses add up to the loss of the whole play.

The level is gnubg's own default analysis level (`show analysis` in gnubg 1.07: "world class",
2-ply, pruning nets, noise off, move filter "large"), ranked as gnubg's analysis ranks plays
(eval.c's FindnSaveBestMoves with the played move as its key move): every play at 0 plies; the
first up to 16 within 0.32 of the best promoted to 2 plies (1-ply skipped); the played play is
always evaluated at the deepest ply reached; where only one play survives the filter, the played
one and the best are both taken to 2 plies only if they differ by more than the "doubtful"
threshold (0.03), as gnubg does. A play left at 0 plies never ranks above the best the filter
promoted (gnubg lists it below them). `--score plies=0` (every play at 0 plies, the "expert" net)
and `plies=1` (gnubg's large filter at 1 ply) are opt-in levels (`parse_level`).

Plays are ranked, filtered and chosen as gnubg ranks them whatever the game counts: by gnubg's own
cubeless money equity (gammons and backgammons counted; `MONEY`), so the plays taken to 2 plies and a
player's play are gnubg's own under every `scoring_type`. Each play's value is then the game's count
at the ply gnubg reached (2p - 1 under `winloss_scoring`), and a grade's loss is measured on it: under
`winloss_scoring` the best value is the best win probability among the plays gnubg looked at deepest,
which may not be gnubg's own choice (one that plays for a gammon).

Graded in parallel, as chess is (oracles/engine_pool.py's one pool): `gnubg_oracle` lends each
batch to one of up to `pool_size()` gnubg processes (`GnubgPool`; another started only when every one
is busy) and offers as many threads (`executor`), on which the session grades moves while the game
goes on. gnubg's evaluation is deterministic (noise off, no state kept between positions), so a
grade never depends on which process made it: the same decisions get the same grades whatever the
pool's size (tests/oracles/test_gnubg.py).

Reproducible: a fixed level, noise off, every position cached in memory by (board, plies, noise,
pruning), and each call to the engine bounded by a wall-clock deadline (`timeout`): past it the
process is killed and restarted, then the game is left unfinished in one line (the rule of every
engine, oracles/engine_process.py: the same command resumes it).
"""

from __future__ import annotations

import atexit
import json
import tempfile
import threading
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from .binary import find_binary
from .engine_pool import ProcessPool
from .engine_process import EngineFailure, TextProcess
from .graded import Grade

if TYPE_CHECKING:
    import pyspiel

TIMEOUT = 60.0  # seconds one batch of positions may take
INSTALL = "install it with `make engines` (Debian: apt-get install gnubg)"
CHECKERS = 15
Board = tuple[tuple[int, ...], tuple[int, ...]]  # gnubg's: (opponent's 25, on roll's 25), bar last

SERVER = """\
import json, sys
import gnubg
gnubg.command("set jacoby off")
CUBE = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
sys.stdout.write("@ready\\n"); sys.stdout.flush()
for line in sys.stdin:
    q = json.loads(line)
    # gnubg's Python order: cubeful, plies, deterministic, prune, noise (cubeless; deterministic noise)
    ec = gnubg.evalcontext(0, int(q["plies"]), 1, int(q.get("prune", 1)), float(q.get("noise", 0.0)))
    out = [list(gnubg.evaluate((tuple(b[0]), tuple(b[1])), CUBE, ec)[:5]) for b in q["boards"]]
    sys.stdout.write("@" + json.dumps(out) + "\\n"); sys.stdout.flush()
"""


def gnubg_path() -> str | None:
    """The gnubg binary ($PLYLAB_GNUBG, else on PATH, else Debian's /usr/games/gnubg); None if absent."""
    return find_binary("gnubg", "PLYLAB_GNUBG")


class GnubgProcess(TextProcess):
    """gnubg's evaluator in a subprocess: a batch of positions in, their probabilities out, in time,
    under the restart and failure rules of every engine (oracles/engine_process.py)."""

    def __init__(self, path: str, timeout: float = TIMEOUT) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="plylab-gnubg-")
        script = Path(self._dir.name) / "server.py"
        script.write_text(SERVER)
        super().__init__("gnubg", [path, "-t", "-q", "-p", str(script)], timeout)

    def handshake(self) -> None:
        self._answer("the start")

    def _answer(self, what: str) -> str:
        """The next line starting with '@' (gnubg's own banner lines are skipped), within the deadline."""
        while not (line := self.read("\n", what)).startswith("@"):
            pass
        return line[1:]

    def evaluate(
        self, boards: list[Board], plies: int = 0, noise: float = 0.0, prune: bool = True
    ) -> list[list[float]]:
        """gnubg's five probabilities for each board (side on roll) at `plies` (`prune`: gnubg's
        pruning nets choose the replies inside the lookahead; `noise`: gnubg's deterministic noise,
        a player's only)."""
        if not boards:
            return []
        query = json.dumps({"plies": plies, "noise": noise, "prune": int(prune), "boards": boards})

        def ask() -> list[list[float]]:
            self.write(query)
            try:
                out = json.loads(self._answer(f"{len(boards)} positions"))
                if not isinstance(out, list) or len(out) != len(boards):
                    raise ValueError("a different number of positions")
                return [[float(p) for p in probs] for probs in out]
            except (ValueError, TypeError) as exc:
                raise EngineFailure(f"{len(boards)} positions: gnubg answered nonsense ({exc})") from None

        return self.call(ask)

    def close(self) -> None:
        super().close()
        self._dir.cleanup()


class GnubgPool(ProcessPool[GnubgProcess]):
    """Up to `size` gnubg processes (default `pool_size()`: PLYLAB_ENGINES, else the cores), lent one
    batch at a time as every engine's pool lends (oracles/engine_pool.py); each starts on its first
    batch. `executor`: `size` threads to grade on."""

    def __init__(self, path: str, size: int | None = None, timeout: float = TIMEOUT) -> None:
        super().__init__("gnubg", path, lambda: GnubgProcess(path, timeout), size)

    def evaluate(
        self, boards: list[Board], plies: int = 0, noise: float = 0.0, prune: bool = True
    ) -> list[list[float]]:
        """GnubgProcess.evaluate by whichever process is idle (the same answer from any of them)."""
        if not boards:
            return []
        with self.lend() as process:
            return process.evaluate(boards, plies, noise, prune)


def board_of(state: pyspiel.State, on_roll: int) -> Board:
    """OpenSpiel's position as gnubg's board with `on_roll` to play: each side's checkers on its own
    points 1..24 (OpenSpiel's fixed positions: player 1's point is i + 1, player 0's is 24 - i), its
    bar last. The bar is read from the observation (Tesauro's encoding: bar and borne-off per side)."""
    sides = []
    for p in (1 - on_roll, on_roll):
        points = [0] * 25
        for i in range(24):
            n = int(state.board(p, i))
            if n:
                points[i if p == 1 else 23 - i] = n
        obs = state.observation_tensor(p)
        points[24] = int(obs[192])
        off = int(obs[193])
        if sum(points) + off != CHECKERS:
            raise ValueError(f"player {p} has {sum(points) + off} checkers, not {CHECKERS}")
        sides.append(tuple(points))
    return sides[0], sides[1]


MONEY = "full_scoring"  # gnubg's cubeless money equity counts gammons and backgammons, as this scoring does


def equity(probs: list[float], scoring: str) -> float:
    """Cubeless equity of the side on roll as OpenSpiel's `scoring_type` counts a game."""
    win, wg, wbg, lg, lbg = probs
    value = 2.0 * win - 1.0
    if scoring in ("enable_gammons", "full_scoring"):
        value += wg - lg
    if scoring == "full_scoring":
        value += wbg - lbg
    return value


End = tuple[Board, float | None]  # a play's position (opponent on roll), and the result if it ends the game


@dataclass(frozen=True)
class MoveFilter:
    """One step of gnubg's move filter (eval.h's `movefilter`): the plays still in the running,
    scored at this ply, keep the first `accept` and then up to `extra` more within `threshold` of
    the best; an `accept` of -1 skips the ply."""

    accept: int
    extra: int
    threshold: float


SKIP = MoveFilter(-1, 0, 0.0)
# gnubg 1.07's named move filters (eval.c's MOVEFILTER_NORMAL and MOVEFILTER_LARGE), the steps
# below a 1-ply and a 2-ply evaluation; `show analysis` and `show evaluation` print them
FILTERS: dict[str, dict[int, tuple[MoveFilter, ...]]] = {
    "normal": {1: (MoveFilter(0, 8, 0.16),), 2: (MoveFilter(0, 8, 0.16), SKIP)},
    "large": {1: (MoveFilter(0, 16, 0.32),), 2: (MoveFilter(0, 16, 0.32), SKIP)},
}
KEY_THRESHOLD = (
    0.03  # gnubg 1.07's "doubtful" analysis threshold: where its analysis takes a play made deeper
)


@dataclass(frozen=True)
class Level:
    """How deep gnubg looks and how it narrows the plays it looks at: gnubg's evalcontext (plies,
    pruning nets, noise; always deterministic and cubeless here) and its move filter."""

    plies: int
    filter: str = ""  # a FILTERS name; none at 0 plies, where every play is scored alike
    noise: float = 0.0  # a player's level only: the grader never adds noise
    prune: bool = True

    @property
    def steps(self) -> tuple[MoveFilter, ...]:
        return FILTERS[self.filter][self.plies] if self.plies else ()

    def text(self) -> str:
        """The level as a grade's source and `--score` write it: "plies=2 filter=large"."""
        parts = [f"plies={self.plies}"] + ([f"filter={self.filter}"] if self.plies else [])
        return " ".join(parts + ([f"noise={self.noise:g}"] if self.noise else []))

    def describe(self) -> str:
        """One sentence for a report: what this level evaluates."""
        if not self.plies:
            return "every play at 0 plies (gnubg's nets alone, its 'expert' level)"
        first = self.steps[0]
        default = " (gnubg's default analysis level)" if self == ANALYSIS else ""
        return (
            f"{self.plies}-ply with gnubg's '{self.filter}' move filter{default}: every play at 0 plies, "
            f"up to {first.extra} within {first.threshold:g} of the best then at {self.plies} plies, "
            f"and the play made always at {self.plies} plies too"
        )


ANALYSIS = Level(2, "large")  # gnubg 1.07's `show analysis`: 2-ply, pruning nets, move filter "large"
LEVEL_KEYS = {0: Level(0), 1: Level(1, "large"), 2: ANALYSIS}  # `--score plies=N`


def parse_level(text: str | None) -> Level:
    """`--score` for backgammon: "" or "on" (gnubg's analysis level, 2-ply), or "plies=0|1|2"."""
    value = (text or "").strip()
    if value in ("", "on"):
        return ANALYSIS
    key, _, n = value.partition("=")
    if key.strip() == "plies" and n.strip().isdigit() and int(n) in LEVEL_KEYS:
        return LEVEL_KEYS[int(n)]
    raise UserError(
        f"--score '{text}' is not a gnubg level; use on (gnubg's analysis level: 2-ply, move filter "
        "'large'), plies=0, plies=1, plies=2 or off"
    )


def level_key(level: Level) -> str:
    """What a run's plan stores for `level`: "" for the default, else its `--score` text."""
    return "" if level == ANALYSIS else f"plies={level.plies}"


def won(board: Board) -> float:
    """gnubg's cubeless money equity of a game the mover has just won (`board`: the winner's checkers
    first, the loser's on roll): 1, 2 for a gammon (the loser bore off none), 3 for a backgammon (a
    gammon with a loser's checker on the bar or in the winner's home board)."""
    loser = board[1]
    if sum(loser) < CHECKERS:
        return 1.0
    return 3.0 if sum(loser[18:25]) else 2.0


@dataclass
class Ranked:
    """gnubg's ranking of the distinct plays of one turn: each play's value as the game counts it at
    the ply it was last scored (`value`), gnubg's own cubeless money equity there (`money`: what
    gnubg ranks, filters and plays by), and the plays scored at the deepest ply (`top`)."""

    value: dict[End, float]
    money: dict[End, float]
    top: set[End]

    @property
    def best(self) -> float:
        """The best value (the game's count) of the plays taken to the deepest ply."""
        return max(self.value[e] for e in self.top)

    @property
    def best_end(self) -> End:
        """gnubg's play: the best by its own equity of those taken to the deepest ply."""
        return max(self.top, key=lambda e: self.money[e])

    def of(self, end: End) -> float:
        """A play's value on gnubg's ranking: one left below the deepest ply never above the best."""
        return self.value[end] if end in self.top else min(self.value[end], self.best)


class GnubgOracle:
    """Grades a backgammon checker play by gnubg's cubeless equity after it, against gnubg's best,
    ranked as gnubg's analysis ranks plays at `level` (gnubg's default analysis level unless set).

    With a `GnubgPool`, `grade` may be called from several threads at once (the pool's `executor`);
    the cache is shared under a lock (a position two threads need at once may be evaluated twice,
    to the same probabilities)."""

    def __init__(self, process: GnubgProcess | GnubgPool, level: Level = ANALYSIS) -> None:
        self.process, self.level = process, level
        self._cache: dict[tuple[Board, int, float, bool], list[float]] = {}
        self._lock = threading.Lock()

    @property
    def executor(self) -> Executor | None:
        """Threads to grade on, one per process of the pool (the session grades there); None for
        one process: graded where the game plays."""
        return self.process.executor if isinstance(self.process, GnubgPool) else None

    @property
    def plies(self) -> int:
        return self.level.plies

    @property
    def source(self) -> str:
        return f"gnubg 1.07 {self.level.text()} cubeless"

    def probabilities(self, boards: list[Board], plies: int | None = None) -> list[list[float]]:
        """gnubg's probabilities of each board (side on roll), each position evaluated once."""
        lv = self.level
        n = lv.plies if plies is None else plies
        with self._lock:
            known = {b: self._cache[k] for b in boards if (k := (b, n, lv.noise, lv.prune)) in self._cache}
        todo = list(dict.fromkeys(b for b in boards if b not in known))
        found = self.process.evaluate(todo, n, lv.noise, lv.prune)  # outside the lock: other threads go on
        with self._lock:
            for board, probs in zip(todo, found, strict=True):
                self._cache[(board, n, lv.noise, lv.prune)] = known[board] = probs
        return [known[b] for b in boards]

    def _score(self, ends: list[End], plies: int, scoring: str) -> dict[End, tuple[float, float]]:
        """Each play's (gnubg's cubeless money equity, the game's count of it) for the mover at
        `plies`; a play that ends the game: the won game's money equity and its result."""
        open_boards = [b for b, result in ends if result is None]
        probs = dict(zip(open_boards, self.probabilities(open_boards, plies), strict=True))
        return {
            (b, r): (won(b), r) if r is not None else (-equity(probs[b], MONEY), -equity(probs[b], scoring))
            for b, r in ends
        }

    def rank(self, ends: list[End], scoring: str, key: End | None = None) -> Ranked:
        """gnubg's FindnSaveBestMoves (eval.c) over the distinct plays `ends`, `key` the play made:
        every play at 0 plies, the move filter's survivors ply by ply to the level's plies, the
        play made always at the deepest ply reached (both it and the best at the full plies where
        one play alone survived and it is more than `KEY_THRESHOLD` worse at 0 plies). The plays
        are ranked and filtered by gnubg's own cubeless money equity (gammons and backgammons
        counted), as gnubg ranks them whatever the game counts; each keeps its value as the game
        counts it (`scoring_type`) at the ply it reached."""
        money: dict[End, float] = {}
        value: dict[End, float] = {}

        def score(plays: list[End], plies: int) -> None:
            for end, (m, v) in self._score(plays, plies, scoring).items():
                money[end], value[end] = m, v

        score(ends, 0)
        cands = sorted(money, key=lambda e: -money[e])
        deepest, ply_of = 0, dict.fromkeys(cands, 0)
        alone = False
        for ply, step in enumerate(self.level.steps):
            if step.accept < 0:
                continue
            if ply > 0:
                score(cands, ply)
                ply_of.update(dict.fromkeys(cands, ply))
                cands.sort(key=lambda e: -money[e])
            keep = min(step.accept, len(cands))
            limit = min(len(cands), keep + step.extra)
            while keep < limit and money[cands[keep]] >= money[cands[0]] - step.threshold:
                keep += 1
            cands, deepest = cands[:keep], ply
            if len(cands) == 1 and step.accept != 1:  # one play left: gnubg looks no deeper
                alone = True
                break
        if self.level.plies and not alone:
            score(cands, self.level.plies)
            ply_of.update(dict.fromkeys(cands, self.level.plies))
            deepest = self.level.plies
        top = set(cands)
        if key is not None and key not in top:
            if ply_of[key] < deepest:
                score([key], deepest)
            best = max(top, key=lambda e: money[e])
            if abs(money[key] - money[best]) > KEY_THRESHOLD and deepest < self.level.plies:
                score([best, key], self.level.plies)
            top.add(key)
        return Ranked(value, money, top)

    def _turns(self, state: pyspiel.State) -> dict[int, list[End]]:
        """Each legal action's distinct ends of the turn (a double's first half: every completion)."""
        mover = state.current_player()
        leaves: dict[int, list[End]] = {}
        for action in state.legal_actions():
            frontier, done = [state.child(action)], []
            while frontier:  # a double's second half: the mover completes the turn
                child = frontier.pop()
                if not child.is_terminal() and not child.is_chance_node() and child.current_player() == mover:
                    frontier.extend(child.child(a) for a in child.legal_actions())
                else:
                    result = float(child.returns()[mover]) if child.is_terminal() else None
                    done.append((board_of(child, 1 - mover), result))
            leaves[action] = list(dict.fromkeys(done))
        return leaves

    def ranked(self, state: pyspiel.State, played: int | None = None) -> tuple[dict[int, list[End]], Ranked]:
        """The turn's plays ranked as gnubg ranks them, `played` (an action) as the play made; a
        double's first half is the best completion of it gnubg's filter finds."""
        scoring = str(state.get_game().get_parameters().get("scoring_type", "winloss_scoring"))
        leaves = self._turns(state)
        ends = list(dict.fromkeys(e for es in leaves.values() for e in es))
        own = leaves[played] if played is not None else []
        # a double's first half: the rest of the turn is still to be played, so the play made is the
        # best completion of it gnubg's filter finds (the second half is then graded against it)
        key = (own[0] if len(own) == 1 else self.rank(own, scoring).best_end) if own else None
        return leaves, self.rank(ends, scoring, key)

    def play_values(self, state: pyspiel.State, played: int | None = None) -> dict[int, float]:
        """The mover's cubeless equity after each legal action (a double's first half by its best
        completion), on gnubg's ranking at this level with `played` as the play made."""
        leaves, ranked = self.ranked(state, played)
        return {action: max(ranked.of(e) for e in ends) for action, ends in leaves.items()}

    def best_action(self, state: pyspiel.State) -> int:
        """gnubg's play at this level (a player's move): the lowest action leading to its best play."""
        leaves, ranked = self.ranked(state)
        best = ranked.best_end
        return min(a for a, ends in leaves.items() if best in ends)

    def grade(self, state: pyspiel.State, action: int) -> Grade:
        """`action` against gnubg's best; a failing gnubg leaves the game unfinished (the rule of every
        engine: oracles/engine_process.py)."""
        leaves, ranked = self.ranked(state, action)
        values = {a: max(ranked.of(e) for e in ends) for a, ends in leaves.items()}
        game = state.get_game()
        span = float(game.max_utility() - game.min_utility())
        best = max(values, key=lambda a: values[a])
        plays = len({e for ends in leaves.values() for e in ends})
        history = state.full_history()
        detail: dict[str, object] = {
            "best": best,
            "play": action,
            "plies": self.level.plies,
            "level": self.level.text(),
            "legal": len(values),
            "plays": plays,  # distinct plays of the whole turn: gnubg's "unforced" is more than one
            "deep": len(ranked.top),  # plays evaluated at the deepest ply
        }
        if history and history[-1].player == state.current_player():
            detail["half"] = 2  # a double's second half: gnubg's one decision with the first
        return Grade(values, unit="payoff", span=span, source=self.source, exact=False, detail=detail)

    def close(self) -> None:
        self.process.close()


_ORACLES: dict[Level, GnubgOracle] = {}


def gnubg_oracle(level: Level = ANALYSIS) -> GnubgOracle | None:
    """The process's gnubg oracle at `level`, grading on a pool of `pool_size()` gnubg processes;
    None where gnubg is not installed."""
    if level not in _ORACLES:
        path = gnubg_path()
        if path is None:
            return None
        _ORACLES[level] = GnubgOracle(GnubgPool(path), level)
    return _ORACLES[level]


@atexit.register
def _close_all() -> None:
    for oracle in _ORACLES.values():
        oracle.close()
    _ORACLES.clear()
