"""Chess and its variants graded by a UCI engine (Stockfish, Fairy-Stockfish) on the one scale.

A move's grade is the mover's expected score (win 1, draw 1/2, loss 0) after the engine's best move
and after the move played, each from the engine's evaluation of a position: the position before the
move gives the best move, its line and its value; the position after the played move, searched
whatever was played (the engine's own best move too), gives the played move's value (the next
move's "before", so each position is searched once). The two evaluations are kept in the grade's
detail (`eval`, `played_eval`) so that analysis/chess.py computes lichess's figures from the
evaluations of consecutive positions, as lichess does; never from a value reused across a move. A
move that ends the game takes its exact result (`{"result": r}`; analysis/chess.py says how lichess
counts a finished game).

Evaluations become expected scores by the centipawn-to-win curve lichess publishes
(https://lichess.org/page/accuracy): Win% = 50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1), with
the evaluation capped at +-1000 centipawns and a mate counted as the cap, as lichess does. Not
Stockfish's own WDL model (UCI_ShowWDL): the accuracy and the inaccuracy / mistake / blunder
thresholds reported beside the loss (analysis/chess.py) are defined on this curve, so the loss,
the accuracy and the counts agree; the curve needs nothing but the evaluation (Stockfish 15.1's
model also needs the ply and is fitted to its own self-play), and Fairy-Stockfish's variants have
no WDL model of their own.

Reproducible: one thread, a fixed node count (or depth), and the hash cleared before every search
(`ucinewgame`), so a position's score depends only on the position, the engine and the limit. Each
score is cached on disk by (engine and version, limit, FEN), so a report never searches again and
a rerun is free. The engine, its version and its limit are the grade's `source`.
"""

from __future__ import annotations

import atexit
import json
import math
import sqlite3
import sys
import threading
from collections.abc import Mapping
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from pydantic import Field, ValidationError

from ..errors import UserError
from ..specs import Params, bind, parse_spec
from .binary import find_binary
from .engine_pool import ProcessPool
from .engine_process import EngineProcess, close_all
from .graded import Grade, expected_score
from .minimax import cache_dir
from .uci import FAMILY, board_of, mapping, maps

if TYPE_CHECKING:
    import chess
    import chess.engine
    import pyspiel

DEFAULT_NODES = 20_000  # an 80-ply game in a few seconds on one core (bench/bench_engine.py)
CP_CAP = 1000  # lichess caps an evaluation at +-1000 centipawns; a mate counts as the cap
PV_MOVES = 8  # moves of the principal variation kept with each grade
ENGINE_FOR = {"chess": "stockfish", **{g: "fairy-stockfish" for g in FAMILY if g != "chess"}}
INSTALL = "apt-get install stockfish fairy-stockfish (or `make setup`)"


class LimitOptions(Params):
    """How long the engine searches each position: a node count, a depth, or both (whichever first)."""

    nodes: int | None = Field(None, ge=1, le=10**8)  # a deadline scales with it (engine_process)
    depth: int | None = Field(None, ge=1, le=99)


@dataclass(frozen=True)
class Limit:
    nodes: int | None = DEFAULT_NODES
    depth: int | None = None

    def text(self) -> str:
        """The limit as written in `--score` and in every grade's source ("nodes=20000")."""
        parts = [f"nodes={self.nodes}" if self.nodes else "", f"depth={self.depth}" if self.depth else ""]
        return ",".join(p for p in parts if p)

    def engine_limit(self) -> chess.engine.Limit:
        import chess.engine

        return chess.engine.Limit(nodes=self.nodes, depth=self.depth)


def parse_limit(text: str | None, option: str = "--score") -> Limit:
    """An engine limit as `option` (`run --score`, `suite build --limit`) gives it: "" or "on" (the
    default, nodes=20000), "nodes=N", "depth=D", or both; anything else one line naming `option`."""
    if text is None or text.strip() in ("", "on"):
        return Limit()
    try:
        opts = bind(parse_spec(f"score:{text.strip()}", kind=option), LimitOptions, kind=option)
    except (UserError, ValidationError):
        raise UserError(
            f"{option} '{text}' is not accepted; use on, off, nodes=N (1 to 100,000,000), "
            "depth=D (1 to 99) or nodes=N,depth=D"
        ) from None
    assert isinstance(opts, LimitOptions)
    if opts.nodes is None and opts.depth is None:
        return Limit()
    return Limit(nodes=opts.nodes, depth=opts.depth)


def engine_path(name: str) -> str | None:
    """Where the engine is: on PATH, else where Debian puts it (/usr/games)."""
    return find_binary(name)


def missing_line(game: str) -> str:
    return f"{game} is played unscored: {ENGINE_FOR[game]} is not installed; {INSTALL}"


class StoredEvaluation(TypedDict):
    """An `Evaluation` as the evaluation cache keeps it (JSON)."""

    cp: int | None
    mate: int | None
    best: str | None
    pv: list[str]


class EvalSummary(TypedDict, total=False):
    """What a grade's detail says of an evaluation (mover's view): the engine's score, or a
    finished game's result."""

    cp: int | None
    mate: int | None
    result: float


@dataclass(frozen=True)
class Evaluation:
    """The engine's verdict on a position, from the side to move: centipawns or mate, best move, line."""

    cp: int | None
    mate: int | None
    best: str | None  # UCI
    pv: tuple[str, ...] = ()

    @property
    def centipawns(self) -> int:
        """Capped at +-1000, a mate as the cap (lichess)."""
        if self.mate is not None:
            return CP_CAP if self.mate > 0 else -CP_CAP
        return max(-CP_CAP, min(CP_CAP, self.cp or 0))

    @property
    def expected(self) -> float:
        return win_chance(self.centipawns)

    def flipped(self) -> Evaluation:
        """The same verdict from the other side (no best move: it was the opponent's)."""
        return Evaluation(
            None if self.cp is None else -self.cp, None if self.mate is None else -self.mate, None
        )

    def to_json(self) -> StoredEvaluation:
        return {"cp": self.cp, "mate": self.mate, "best": self.best, "pv": list(self.pv)}

    @classmethod
    def from_json(cls, d: StoredEvaluation) -> Evaluation:
        return cls(d.get("cp"), d.get("mate"), d.get("best"), tuple(d.get("pv") or ()))


def win_chance(cp: float) -> float:
    """lichess's curve as an expected score in [0, 1]: Win% / 100 (https://lichess.org/page/accuracy)."""
    return 0.5 + 0.5 * (2.0 / (1.0 + math.exp(-0.00368208 * cp)) - 1.0)


def eval_text(cp: int | None, mate: int | None) -> str:
    return f"#{mate}" if mate is not None else f"{(cp or 0) / 100:+.2f}"


class EvalCache:
    """Evaluations on disk, by (engine and version, limit, FEN): one SQLite file for every process."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_dir() / "engine-evals.sqlite"
        self._conn = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        # Not a sync to disk per search: a pool's processes store an evaluation each every few
        # milliseconds, and a sync (8 ms on a busy disk) under the lock would serialise them. WAL with
        # NORMAL survives a crash of plylab whole; a power cut may lose the last evaluations, which
        # are searched again (the same numbers).
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS evals (engine TEXT, lim TEXT, fen TEXT, eval TEXT, "
            "PRIMARY KEY (engine, lim, fen))"
        )
        self._conn.commit()
        self._lock = threading.Lock()

    def get(self, engine: str, limit: str, fen: str) -> Evaluation | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT eval FROM evals WHERE engine = ? AND lim = ? AND fen = ?", (engine, limit, fen)
            ).fetchone()
        return None if row is None else Evaluation.from_json(json.loads(row[0]))

    def put(self, engine: str, limit: str, fen: str, ev: Evaluation) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO evals VALUES (?, ?, ?, ?)",
                (engine, limit, fen, json.dumps(ev.to_json())),
            )
            self._conn.commit()

    def close(self) -> None:
        self._conn.close()


class Engine:
    """One UCI engine process: one thread, a small hash cleared before every search. Every call has
    a deadline and a failing engine is restarted, then given up on (oracles/engine_process.py)."""

    def __init__(self, name: str, path: str) -> None:
        self.name = name
        # UCI_Variant: python-chess sets it per board
        self._process = EngineProcess(name, path, defaults={"Threads": 1, "Hash": 16})
        ident = str(self._process.id.get("name", name))
        self.version = ident.split()[1] if len(ident.split()) > 1 else ""
        self.ident = f"{name} {self.version}".strip()

    def analyse(self, board: chess.Board, limit: Limit) -> Evaluation:
        # a fresh game object: `ucinewgame` clears the hash, so a score is reproducible
        info = self._process.analyse(board, limit.engine_limit())
        score = info["score"].pov(board.turn)
        pv = tuple(m.uci() for m in info.get("pv", ())[:PV_MOVES])
        return Evaluation(score.score(), score.mate(), pv[0] if pv else None, pv)

    def play(self, board: chess.Board, limit: chess.engine.Limit) -> chess.Move | None:
        return self._process.play(board, limit)

    def configure(self, options: chess.engine.ConfigMapping) -> None:
        self._process.configure(options)

    @property
    def options(self) -> Mapping[str, chess.engine.Option]:
        return self._process.options

    def pid(self) -> int | None:
        return self._process.pid()

    def close(self) -> None:
        self._process.close()


class EnginePool(ProcessPool[Engine]):
    """Up to `size` processes of one engine, lent one search at a time; threads to grade on.

    The first process starts now (a missing or broken engine is said before any game, and its
    name and version are the grades' source); the others when a search finds every one busy.
    """

    def __init__(self, name: str, path: str, size: int | None = None) -> None:
        first = Engine(name, path)
        super().__init__(name, path, lambda: Engine(name, path), size, first)
        self.ident, self.version = first.ident, first.version

    def analyse(self, board: chess.Board, limit: Limit) -> Evaluation:
        """The position searched by whichever process is idle (the same search in any of them)."""
        with self.lend() as engine:
            return engine.analyse(board, limit)


class EngineOracle:
    """Grades a chess-family move by the engine's evaluations (not exact: relative to the search).

    Its searches go to a pool of engine processes (EnginePool, sized by oracles/engine_pool.py), the run's shared one
    for the engine, else a pool of its own (`size` processes, default PLYLAB_ENGINES or the cores);
    `grade` may be called from several threads at once (the pool's `executor`), and a position
    several of them need at once is searched once."""

    exact = False

    def __init__(
        self,
        game: str,
        limit: Limit,
        path: str,
        cache: EvalCache | None = None,
        pool: EnginePool | None = None,
        size: int | None = None,
    ) -> None:
        self.game = game
        self.limit = limit
        self._owns_pool = pool is None
        self.pool = pool if pool is not None else EnginePool(ENGINE_FOR[game], path, size)
        self.cache = cache or EvalCache()
        variant = "" if game == "chess" else f" {FAMILY[game][1]}"
        self.key = f"{self.pool.ident}{variant}"
        self.source = f"{self.pool.ident}{variant} {limit.text()}"
        self._lock = threading.Lock()
        self._searching: dict[str, Future[Evaluation]] = {}  # FEN -> its search in progress

    @property
    def executor(self) -> Executor:
        """Threads to grade on, as many as the pool has processes (the session grades there)."""
        return self.pool.executor

    def evaluate(self, board: chess.Board) -> Evaluation:
        """The position's evaluation, from the cache where it was searched before; a position that
        another thread is searching now is waited for, not searched twice."""
        fen = board.fen()
        found = self.cache.get(self.key, self.limit.text(), fen)
        if found is not None:
            return found
        with self._lock:
            running = self._searching.get(fen)
            mine = running is None
            if running is None:
                running = self._searching[fen] = Future()
        if not mine:
            return running.result()
        try:
            found = self.pool.analyse(board, self.limit)
            self.cache.put(self.key, self.limit.text(), fen, found)
        except BaseException as exc:
            running.set_exception(exc)
            raise
        else:
            running.set_result(found)
        finally:
            with self._lock:
                del self._searching[fen]
        return found

    def _after(self, state: pyspiel.State, action: int, mover: int) -> tuple[float, EvalSummary]:
        """The mover's expected score after `action`, and the evaluation it comes from (mover's view)."""
        child = state.child(action)
        if child.is_terminal():
            result = expected_score(float(child.returns()[mover]))
            return result, {"result": result}
        ev = self.evaluate(board_of(self.game, child)).flipped()
        return ev.expected, {"cp": ev.cp, "mate": ev.mate}

    def grade(self, state: pyspiel.State, action: int) -> Grade:
        m = mapping(self.game, state)
        if not m.exact:
            raise Ungraded(f"{self.game}: OpenSpiel's legal moves differ from the engine's here")
        mover = state.current_player()
        ev = self.evaluate(m.board)
        best_action = m.to_action.get(ev.best or "")
        if best_action is None:  # no move (cannot happen in a position with legal moves) or unmapped
            raise Ungraded(f"{self.game}: the engine's best move {ev.best} is not an OpenSpiel move")
        before: EvalSummary = {"cp": ev.cp, "mate": ev.mate}  # this position's own search
        best_score = ev.expected
        if state.child(best_action).is_terminal():  # a mate (or a draw) at once: its exact result
            best_score, _ = self._after(state, best_action, mover)
        # The position after the move is searched even when the engine's best move was played: its
        # evaluation is that position's own (the next move's "before", and PGN's [%eval]), never the
        # parent's reused. On the graded scale the engine's own move keeps a loss of 0 (its value is
        # the search after it); lichess's figures use the two evaluations (analysis/chess.py).
        played_score, played_eval = self._after(state, action, mover)
        if action == best_action:
            best_score = played_score
        detail = {
            "engine": self.key,
            "limit": self.limit.text(),
            "mover": "white" if m.board.turn else "black",
            "best": {
                "action": best_action,
                "label": str(state.action_to_string(mover, best_action)),
                "uci": ev.best,
            },
            "played": {"action": action, "uci": m.uci(action)},
            "pv": list(ev.pv),
            "eval": before,
            "played_eval": played_eval,
            "cp_loss": max(0, _cp(before) - _cp(played_eval)),
        }
        expected = {best_action: best_score, action: played_score}
        return Grade(expected, unit="score", source=self.source, exact=False, detail=detail)

    def close(self) -> None:
        if self._owns_pool:
            self.pool.close()


class Ungraded(Exception):
    """This decision cannot be graded (the position's rules differ between OpenSpiel and the engine)."""


def _cp(ev: EvalSummary) -> int:
    """An evaluation (mover's view) in capped centipawns; a finished game as the cap or 0."""
    if "result" in ev:
        return round((float(ev["result"]) - 0.5) * 2 * CP_CAP)
    return Evaluation(ev.get("cp"), ev.get("mate"), None).centipawns


_ORACLES: dict[tuple[str, str], EngineOracle | None] = {}
_POOLS: dict[str, EnginePool] = {}  # engine path -> the process's pool of it (every game and limit)
_WARNED: set[str] = set()


def engine_oracle(game: str, limit: str = "") -> EngineOracle | None:
    """The process's engine oracle for a chess-family game at `limit`; None (with one line on
    stderr) where the engine is not installed, or where the game does not map to an engine."""
    if not maps(game):
        return None
    key = (game, limit)
    if key not in _ORACLES:
        path = engine_path(ENGINE_FOR[game])
        if path is None:
            if game not in _WARNED:
                _WARNED.add(game)
                print(missing_line(game), file=sys.stderr)
            _ORACLES[key] = None
        else:
            if path not in _POOLS:
                _POOLS[path] = EnginePool(ENGINE_FOR[game], path)
            _ORACLES[key] = EngineOracle(game, parse_limit(limit), path, pool=_POOLS[path])
    return _ORACLES[key]


def _close_all() -> None:
    for oracle in _ORACLES.values():
        if oracle is not None:
            oracle.close()
    _ORACLES.clear()
    for pool in _POOLS.values():
        pool.close()
    _POOLS.clear()
    close_all()  # the players' engines too: none outlives the process


# python-chess talks to an engine from a non-daemon thread, which the interpreter joins before atexit
# handlers run: the engines are closed first, or a process would never end.
_register = getattr(threading, "_register_atexit", atexit.register)
_register(_close_all)
