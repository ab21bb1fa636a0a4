"""Backgammon graded by GNU Backgammon's neural nets on the one scale: the mover's cubeless equity.

Debian's `gnubg` (1.07, installed by `make engines`) runs in a subprocess with its embedded Python
(`gnubg -t -q -p`): a small server script reads positions as JSON lines and answers each with
gnubg's five outcome probabilities (`gnubg.evaluate`: win, win gammon, win backgammon, lose gammon,
lose backgammon, for the side on roll). Chosen over PyPI's `gnubg-nn` bindings, which are alpha
releases built from source; the Debian package is the released engine the community analyses with.

A checker play is graded by the position it leads to, never by its text (OpenSpiel writes
`13/7/3` where gnubg writes `13/3`): every legal OpenSpiel action is applied, the position after it
is evaluated with the opponent on roll, and the mover's equity is minus the opponent's. The best is
the best over every legal play (gnubg's hint without its move filters). OpenSpiel's backgammon has
no doubling cube, so the equity is cubeless; it is counted as the game scores (`scoring_type`):
`winloss_scoring` (the default) 2p - 1, `enable_gammons` adding gammons, `full_scoring` adding
backgammons too (gnubg's cubeless money equity). A double is two OpenSpiel decisions (two
checkers each): the first half is valued by the best completion of the turn, so the two losses add
up to the loss of the whole play.

Reproducible: a fixed evaluation level (`plies`, 0 by default: gnubg's "expert" net, noise off,
deterministic), every position cached in memory by (board, plies), and each call to the engine
bounded by a wall-clock deadline (`timeout`): past it the process is killed, started once more,
then the game is left unfinished (a world's failure, as a chess engine's: the same command resumes it).
"""

from __future__ import annotations

import atexit
import json
import os
import selectors
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ProviderFailure
from .binary import find_binary
from .graded import Grade

if TYPE_CHECKING:
    import pyspiel

PLIES = 0  # gnubg's "expert" level: its nets, no lookahead, no noise
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
    ec = gnubg.evalcontext(0, int(q["plies"]), 1, 1, float(q.get("noise", 0.0)))
    out = [list(gnubg.evaluate((tuple(b[0]), tuple(b[1])), CUBE, ec)[:5]) for b in q["boards"]]
    sys.stdout.write("@" + json.dumps(out) + "\\n"); sys.stdout.flush()
"""


def gnubg_path() -> str | None:
    """The gnubg binary ($PLYLAB_GNUBG, else on PATH, else Debian's /usr/games/gnubg); None if absent."""
    return find_binary("gnubg", "PLYLAB_GNUBG")


class GnubgError(RuntimeError):
    """gnubg died, answered nonsense, or did not answer within its deadline."""


class GnubgProcess:
    """gnubg's evaluator in a subprocess: a batch of positions in, their probabilities out, in time."""

    def __init__(self, path: str, timeout: float = TIMEOUT) -> None:
        self.path, self.timeout = path, timeout
        self._dir = tempfile.TemporaryDirectory(prefix="plylab-gnubg-")
        self._script = Path(self._dir.name) / "server.py"
        self._script.write_text(SERVER)
        self.proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""

    def _start(self) -> subprocess.Popen[bytes]:
        argv = [self.path, "-t", "-q", "-p", str(self._script)]
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0
            )
        except OSError as exc:
            raise GnubgError(f"gnubg did not start ({exc.strerror or exc})") from None
        self._buffer = b""
        self._read("@ready")
        return self.proc

    def _read(self, what: str) -> str:
        """The next line starting with '@' (gnubg's own banner lines are skipped), within the deadline."""
        assert self.proc is not None and self.proc.stdout is not None
        deadline = time.monotonic() + self.timeout
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            while True:
                while b"\n" in self._buffer:
                    line, self._buffer = self._buffer.split(b"\n", 1)
                    if line.startswith(b"@"):
                        return line[1:].decode()
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    self.kill()
                    raise GnubgError(f"no answer to {what} within {self.timeout:g} s")
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    self.kill()
                    raise GnubgError(f"gnubg exited while answering {what}")
                self._buffer += chunk

    def _ask(self, boards: list[Board], plies: int, noise: float) -> list[list[float]]:
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self._start()
        assert proc.stdin is not None
        query = json.dumps({"plies": plies, "noise": noise, "boards": boards})
        try:
            proc.stdin.write(query.encode() + b"\n")
            proc.stdin.flush()
        except OSError as exc:
            self.kill()
            raise GnubgError(f"gnubg is gone ({exc})") from None
        out = json.loads(self._read(f"{len(boards)} positions"))
        if not isinstance(out, list) or len(out) != len(boards):
            raise GnubgError("gnubg answered a different number of positions")
        return [[float(p) for p in probs] for probs in out]

    def evaluate(self, boards: list[Board], plies: int = PLIES, noise: float = 0.0) -> list[list[float]]:
        """gnubg's five probabilities for each board (side on roll); a stuck or dead gnubg is
        started once more, then GnubgError."""
        if not boards:
            return []
        try:
            return self._ask(boards, plies, noise)
        except GnubgError:
            self.kill()
            return self._ask(boards, plies, noise)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        self.proc = None
        self._dir.cleanup()


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


def equity(probs: list[float], scoring: str) -> float:
    """Cubeless equity of the side on roll as OpenSpiel's `scoring_type` counts a game."""
    win, wg, wbg, lg, lbg = probs
    value = 2.0 * win - 1.0
    if scoring in ("enable_gammons", "full_scoring"):
        value += wg - lg
    if scoring == "full_scoring":
        value += wbg - lbg
    return value


class GnubgOracle:
    """Grades a backgammon checker play by gnubg's cubeless equity after it, against gnubg's best."""

    def __init__(self, process: GnubgProcess, plies: int = PLIES) -> None:
        self.process, self.plies = process, plies
        self._cache: dict[tuple[Board, int], list[float]] = {}

    @property
    def source(self) -> str:
        return f"gnubg 1.07 plies={self.plies} cubeless"

    def probabilities(self, boards: list[Board]) -> list[list[float]]:
        """gnubg's probabilities of each board (side on roll), each position evaluated once."""
        todo = list(dict.fromkeys(b for b in boards if (b, self.plies) not in self._cache))
        for board, probs in zip(todo, self.process.evaluate(todo, self.plies), strict=True):
            self._cache[(board, self.plies)] = probs
        return [self._cache[(b, self.plies)] for b in boards]

    def play_values(self, state: pyspiel.State) -> dict[int, float]:
        """The mover's cubeless equity after each legal action (a double's first half by its best
        completion)."""
        mover = state.current_player()
        scoring = str(state.get_game().get_parameters().get("scoring_type", "winloss_scoring"))
        leaves: dict[int, list[tuple[pyspiel.State, int]]] = {}  # action -> final states of the turn
        for action in state.legal_actions():
            frontier, done = [state.child(action)], []
            while frontier:  # a double's second half: the mover completes the turn
                child = frontier.pop()
                if not child.is_terminal() and not child.is_chance_node() and child.current_player() == mover:
                    frontier.extend(child.child(a) for a in child.legal_actions())
                else:
                    done.append((child, mover))
            leaves[action] = done
        open_boards = [
            board_of(s, 1 - mover) for ends in leaves.values() for s, _ in ends if not s.is_terminal()
        ]
        probs = dict(zip(open_boards, self.probabilities(open_boards), strict=True))
        values: dict[int, float] = {}
        for action, ends in leaves.items():
            values[action] = max(
                float(s.returns()[mover])
                if s.is_terminal()
                else -equity(probs[board_of(s, 1 - mover)], scoring)
                for s, _ in ends
            )
        return values

    def grade(self, state: pyspiel.State, action: int) -> Grade:
        """`action` against gnubg's best; a gnubg that fails twice leaves the game unfinished (a
        failure of the world's, as a chess engine's is: the same command resumes it)."""
        try:
            values = self.play_values(state)
        except GnubgError as exc:
            raise ProviderFailure(
                "engine",
                f"gnubg ({self.process.path}) failed twice ({exc}); the game is left unfinished: "
                "re-run the same command to resume",
            ) from None
        game = state.get_game()
        span = float(game.max_utility() - game.min_utility())
        best = max(values, key=lambda a: values[a])
        detail = {"best": best, "play": action, "plies": self.plies, "legal": len(values)}
        return Grade(values, unit="payoff", span=span, source=self.source, exact=False, detail=detail)

    def close(self) -> None:
        self.process.close()


_ORACLES: dict[int, GnubgOracle] = {}


def gnubg_oracle(plies: int = PLIES) -> GnubgOracle | None:
    """The process's gnubg oracle at `plies`; None where gnubg is not installed."""
    if plies not in _ORACLES:
        path = gnubg_path()
        if path is None:
            return None
        _ORACLES[plies] = GnubgOracle(GnubgProcess(path), plies)
    return _ORACLES[plies]


@atexit.register
def _close_all() -> None:
    for oracle in _ORACLES.values():
        oracle.close()
    _ORACLES.clear()
