"""GNU Go as a player of Go (`gnugo[:level=N]`): an opponent of known strength, not a grader.

Debian's `gnugo` (3.8, installed by `make engines`) over the Go Text Protocol (oracles/gtp.py), one
process per game. GNU Go plays at `level` 0 to 10 (its own default is 10; level 1 answers in
milliseconds on 9x9), seeded from the player's seed so a game replays. It is told OpenSpiel's
board size (`go:board_size=9`), komi (7.5 by default) and Chinese (area) rules, the rules GNU Go
scores the finished game by (oracles/gtp.py `go_count`); the game is OpenSpiel's, so a move GNU Go
names that OpenSpiel does not allow (a superko repetition GNU Go does not check) is replaced by a
pass and said in the move's note. GNU Go's `resign` is played as a pass: OpenSpiel's Go has no
resignation.

Go has no ground truth here (`plylab games` says so): no engine strong enough to grade a move is
available, and GNU Go's own play is far from that. Every GTP call has a wall-clock deadline
(`timeout`, seconds); a GNU Go that dies or does not answer is restarted, then the game is left
unfinished in one line, the rule of every engine (oracles/engine_process.py). A small client
rather than a PyPI one: the GTP libraries there (`gtp` 0.2 of 2016, `gomill` 0.8 of 2019) are
unmaintained and none bounds a call in time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from ..errors import UserError
from ..oracles.engine_process import EngineRefusal, give_up
from ..oracles.gtp import INSTALL, MAX_SIZE, Gtp, action_of, gnugo_argv, gnugo_path, vertex
from ..specs import Params
from .base import Decision, Player, Turn, register_player

if TYPE_CHECKING:
    from ..games import GameDef


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
    _sent: tuple[int, ...] | None = None  # the moves GNU Go's board holds (None: unknown, cleared)
    _starts = 0  # the engine's process that holds them (Gtp.starts)

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

    def _engine_now(self) -> Gtp:
        if self._engine is None:
            path = gnugo_path()
            if path is None:
                raise UserError(f"player 'gnugo' needs GNU Go: {INSTALL}")
            komi = float(self.game.engine.get_parameters()["komi"])
            argv = gnugo_argv(path, "--level", str(self.options.level), "--seed", str(self.seed % 2**31 or 1))
            self._engine = Gtp(argv, self.options.timeout, (self.size, komi))
        return self._engine

    def _genmove(self, history: list[int], colour: str) -> str:
        """GNU Go's board brought to OpenSpiel's history (the new moves only, else from a clear
        board: a fresh process has none), then its move."""
        engine = self._engine_now()
        if engine.starts != self._starts:  # a fresh process: its handshake cleared the board
            self._sent, self._starts = (), engine.starts
        if self._sent is None or tuple(history[: len(self._sent)]) != self._sent:
            engine.send("clear_board")
            self._sent = ()
        for ply in range(len(self._sent), len(history)):
            engine.send(f"play {'black' if ply % 2 == 0 else 'white'} {vertex(history[ply], self.size)}")
            self._sent = tuple(history[: ply + 1])
        return engine.send(f"genmove {colour}")

    async def act(self, turn: Turn) -> Decision:
        colour = "black" if turn.state.current_player() == 0 else "white"
        history = list(turn.state.history())
        engine = self._engine_now()
        try:
            reply = engine.call(lambda: self._genmove(history, colour))
        except EngineRefusal as exc:  # a live GNU Go that will not take this game: no restart helps
            self.close()
            raise give_up("gnugo", engine.path, 1, str(exc)) from None
        action, passed = action_of(reply, self.size), self.size * self.size
        if action is None or action not in turn.state.legal_actions():
            self._sent = None  # its board holds a move OpenSpiel's game does not: clear it
            return Decision(passed, note={"gnugo": reply, "played": "pass: not legal in OpenSpiel's game"})
        if reply.upper() == "RESIGN":
            self._sent = None  # nothing was played on its board; OpenSpiel's pass is
            return Decision(
                passed, note={"gnugo": reply, "played": "pass: OpenSpiel's Go has no resignation"}
            )
        self._sent = (*turn.state.history(), action)  # its board already holds its own move
        return Decision(action)

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()
            self._engine = None
            self._sent, self._starts = None, 0
