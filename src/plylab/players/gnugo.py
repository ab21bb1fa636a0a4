"""GNU Go as a player of Go (`gnugo[:level=N]`): an opponent of known strength, not a grader.

Debian's `gnugo` (3.8, installed by `make engines`) over the Go Text Protocol in a subprocess, one
process per game. GNU Go plays at `level` 0 to 10 (its own default is 10; level 1 answers in
milliseconds on 9x9), seeded from the player's seed so a game replays. It is told OpenSpiel's
board size and komi (`go:board_size=9`, komi 7.5 by default) and Chinese (area) rules, the scoring
OpenSpiel applies at the end; the game is OpenSpiel's, so a move GNU Go names that OpenSpiel does
not allow (a superko repetition GNU Go does not check) is replaced by a pass and said in the move's
note. GNU Go's `resign` is played as a pass: OpenSpiel's Go has no resignation.

Go has no ground truth here (`plylab games` says so): no engine strong enough to grade a move is
available, and GNU Go's own play is far from that. Every GTP call has a wall-clock deadline
(`timeout`, seconds); past it the process is killed and started once more, then the game fails in
one line. A small client rather than a PyPI one: the GTP libraries there (`gtp` 0.2 of 2016,
`gomill` 0.8 of 2019) are unmaintained and none bounds a call in time.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from typing import TYPE_CHECKING

import pyspiel
from pydantic import Field

from ..errors import UserError
from ..oracles.binary import find_binary
from ..specs import Params
from .base import Decision, Player, Turn, register_player

if TYPE_CHECKING:
    from ..games import GameDef

COLUMNS = "ABCDEFGHJKLMNOPQRST"  # GTP's columns: no I
MAX_SIZE = 19  # GNU Go's largest board
INSTALL = "install it with `make engines` (Debian: apt-get install gnugo)"


def gnugo_path() -> str | None:
    """The GNU Go binary ($PLYLAB_GNUGO, else on PATH, else Debian's /usr/games/gnugo); None if absent."""
    return find_binary("gnugo", "PLYLAB_GNUGO")


def vertex(action: int, size: int) -> str:
    """OpenSpiel's Go action (row-major from a1; size x size is pass) as a GTP vertex ('D4', 'pass')."""
    if action == size * size:
        return "pass"
    row, col = divmod(action, size)
    return f"{COLUMNS[col]}{row + 1}"


def action_of(text: str, size: int) -> int | None:
    """A GTP vertex as OpenSpiel's action (pass and resign as pass); None where it names no point."""
    v = text.strip().upper()
    if v in ("PASS", "RESIGN"):
        return size * size
    if len(v) < 2 or v[0] not in COLUMNS[:size] or not v[1:].isdigit():
        return None
    row = int(v[1:]) - 1
    return row * size + COLUMNS.index(v[0]) if 0 <= row < size else None


class GtpError(RuntimeError):
    """The engine answered `?`, died, or did not answer in time."""


class Gtp:
    """A GTP engine in a subprocess: one command, one answer, each within `timeout` seconds."""

    def __init__(self, argv: list[str], timeout: float) -> None:
        self.argv, self.timeout = argv, timeout
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0
        )
        self._buffer = b""

    def send(self, command: str) -> str:
        """The answer to `command` (without its `=`); GtpError on `?`, on a dead engine or past the deadline."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(command.encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise GtpError(f"the engine is gone ({exc})") from None
        deadline = time.monotonic() + self.timeout
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            while b"\n\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    self.kill()  # a stuck engine is not asked to quit
                    raise GtpError(f"no answer to '{command}' within {self.timeout:g} s")
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    raise GtpError(f"the engine exited while answering '{command}'")
                self._buffer += chunk.replace(b"\r", b"")
        answer, self._buffer = self._buffer.split(b"\n\n", 1)
        text = answer.decode(errors="replace").strip()
        if text.startswith("?"):
            raise GtpError(f"'{command}' refused: {text[1:].strip()}")
        return text[1:].strip() if text.startswith("=") else text

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write(b"quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


class GnuGoOptions(Params):
    level: int = Field(10, ge=0, le=10)  # GNU Go's strength setting (its default: 10)
    timeout: float = Field(120.0, gt=0, le=3600)  # seconds a GTP call may take


@register_player
class GnuGoPlayer(Player[GnuGoOptions]):
    games = ("go",)
    Options = GnuGoOptions
    cpu_bound = True
    summary = "GNU Go 3.8 over GTP (Go up to 19x19, area rules, the game's komi): level=0..10 (default 10), timeout=S"
    _engine: Gtp | None = None
    _sent: tuple[int, ...] = ()  # the moves GNU Go's board holds, as OpenSpiel actions

    @classmethod
    def prepare(cls, options: Params) -> None:
        if gnugo_path() is None:
            raise UserError(f"player 'gnugo' needs GNU Go: {INSTALL}")

    @classmethod
    def refusal(cls, game: GameDef) -> str | None:
        params = game.engine.get_parameters()
        size, handicap = int(params["board_size"]), int(params["handicap"])
        if size > MAX_SIZE:
            return f"GNU Go plays boards up to {MAX_SIZE}x{MAX_SIZE}, not {size}x{size}"
        if handicap:
            return "GNU Go is not given OpenSpiel's handicap stones (handicap=0 only)"
        return None

    @property
    def size(self) -> int:
        return int(self.game.engine.get_parameters()["board_size"])

    def _start(self) -> Gtp:
        path = gnugo_path()
        if path is None:
            raise UserError(f"player 'gnugo' needs GNU Go: {INSTALL}")
        komi = float(self.game.engine.get_parameters()["komi"])
        argv = [path, "--mode", "gtp", "--chinese-rules", "--level", str(self.options.level)]
        argv += ["--seed", str(self.seed % 2**31 or 1)]
        engine = Gtp(argv, self.options.timeout)
        engine.send(f"boardsize {self.size}")
        engine.send("clear_board")
        engine.send(f"komi {komi:g}")
        self._sent = ()
        return engine

    def _sync(self, history: list[int]) -> Gtp:
        """GNU Go's board brought to OpenSpiel's history: the new moves only, else from a clear board."""
        engine = self._engine if self._engine is not None else self._start()
        self._engine = engine
        if tuple(history[: len(self._sent)]) != self._sent:
            engine.send("clear_board")
            self._sent = ()
        for ply in range(len(self._sent), len(history)):
            colour = "black" if ply % 2 == 0 else "white"
            engine.send(f"play {colour} {vertex(history[ply], self.size)}")
        self._sent = tuple(history)
        return engine

    def _genmove(self, state: pyspiel.State) -> str:
        colour = "black" if state.current_player() == 0 else "white"
        for attempt in (1, 2):  # a dead or stuck engine is started once more
            try:
                return self._sync(list(state.history())).send(f"genmove {colour}")
            except GtpError:
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def act(self, turn: Turn) -> Decision:
        try:
            reply = self._genmove(turn.state)
        except GtpError as exc:
            raise UserError(f"gnugo failed: {exc}") from None
        action, passed = action_of(reply, self.size), self.size * self.size
        if action is None or action not in turn.state.legal_actions():
            self._sent = ()  # its board holds a move OpenSpiel's game does not: start it again
            return Decision(passed, note={"gnugo": reply, "played": "pass: not legal in OpenSpiel's game"})
        if reply.upper() == "RESIGN":
            self._sent = ()  # nothing was played on its board; OpenSpiel's pass is
            return Decision(
                passed, note={"gnugo": reply, "played": "pass: OpenSpiel's Go has no resignation"}
            )
        self._sent = (*turn.state.history(), action)  # its board already holds its own move
        return Decision(action)

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()
            self._engine = None
            self._sent = ()
