"""Chess engines as players: a ladder to place a model on the Elo scale chess leaderboards use.

`stockfish[:elo=N|skill=K|nodes=N|depth=D]` plays chess, `fairy-stockfish[...]` chess and the variants
that map to it (antichess, crazyhouse; oracles/uci.py). Each move is searched from a cleared hash on
one thread at a fixed node count (default 100,000) or depth, so an unlimited engine plays the same
game every time. `elo=N` sets UCI_LimitStrength / UCI_Elo and `skill=K` the Skill Level: Stockfish
then picks among its candidate moves with a random generator seeded from the clock, so a
strength-limited engine is not reproducible (docs/players.md). Stockfish calibrates UCI_Elo at 60 s + 0.6 s
per game; at a fixed node count the Elo is the engine's scale, approximately. An Elo below the
engine's floor (1350 for Stockfish 15.1; Stockfish 16 goes down to 1320) plays at the floor, and
says so once; a skill off the engine's own Skill Level range (Stockfish 15.1: 0 to 20) is refused
before any game. Every call has a deadline, and an engine that hangs, dies or lies is restarted,
then its game left unfinished for the same command to resume (oracles/engine_process.py).
"""

from __future__ import annotations

import sys
from typing import ClassVar

from pydantic import Field

from ..errors import ProviderFailure, UserError
from ..oracles.engine import INSTALL, Engine, engine_path
from ..oracles.uci import FAMILY, mapping
from ..specs import Params
from .base import Decision, Player, Turn, register_player

PLAY_NODES = 100_000


class EngineOptions(Params):
    elo: int | None = Field(None, ge=0, le=5000)  # UCI_LimitStrength with UCI_Elo
    skill: int | None = Field(None, ge=-20, le=20)  # Skill Level (Fairy-Stockfish goes below 0)
    nodes: int | None = Field(None, ge=1, le=10**8)  # a deadline scales with it (engine_process)
    depth: int | None = Field(None, ge=1, le=99)


def _clamped_elo(engine: Engine, elo: int) -> int:
    opt = engine.options.get("UCI_Elo")
    if opt is None:
        raise UserError(f"{engine.ident} has no UCI_Elo option; use skill=K instead of elo={elo}")
    assert opt.min is not None and opt.max is not None  # UCI_Elo is a spin option: it has both bounds
    low, high = int(opt.min), int(opt.max)
    return max(low, min(high, elo))


def _checked_skill(engine: Engine, skill: int) -> int:
    """`skill` where the engine's own Skill Level option accepts it (Stockfish 15.1: 0 to 20,
    Fairy-Stockfish: -20 to 20); one line naming that range otherwise."""
    opt = engine.options.get("Skill Level")
    if opt is None:
        raise UserError(f"{engine.ident} has no Skill Level option; use elo=N instead of skill={skill}")
    low, high = int(opt.min if opt.min is not None else skill), int(opt.max if opt.max is not None else skill)
    if not low <= skill <= high:
        raise UserError(
            f"{engine.ident} accepts skill={low} to {high} (its Skill Level option), not skill={skill}"
        )
    return skill


class EnginePlayer(Player[EngineOptions]):
    """A UCI engine over python-chess, one process per game."""

    Options = EngineOptions
    cpu_bound = True
    engine_name: ClassVar[str]
    _warned: ClassVar[set[str]] = set()

    @classmethod
    def prepare(cls, options: Params) -> None:
        """One line, before any game starts, when the engine is missing, a skill is off the engine's
        own range (its `uci` option list), or an Elo is off its scale (played at the nearest end)."""
        path = engine_path(cls.engine_name)
        if path is None:
            raise UserError(f"player '{cls.engine_name}' needs the engine: {INSTALL}")
        assert isinstance(options, EngineOptions)
        if options.elo is None and options.skill is None:
            return
        try:
            engine = Engine(cls.engine_name, path)
        except ProviderFailure:  # said in one line; its games are left unfinished, as a run's are
            return
        try:
            if options.skill is not None:
                _checked_skill(engine, options.skill)
            if options.elo is not None:
                used = _clamped_elo(engine, options.elo)
                opt = engine.options["UCI_Elo"]
        finally:
            engine.close()
        if (
            options.elo is not None
            and used != options.elo
            and f"{cls.engine_name}{options.elo}" not in cls._warned
        ):
            cls._warned.add(f"{cls.engine_name}{options.elo}")
            print(
                f"note: {engine.ident} plays elo={options.elo} as UCI_Elo {used} "
                f"(its scale: {opt.min} to {opt.max})",
                file=sys.stderr,
            )

    def _engine(self) -> Engine:
        engine: Engine | None = getattr(self, "_cached", None)
        if engine is None:
            path = engine_path(self.engine_name)
            if path is None:
                raise UserError(f"player '{self.engine_name}' needs the engine: {INSTALL}")
            engine = Engine(self.engine_name, path)
            try:
                o = self.options
                settings: dict[str, str | int | bool | None] = {}  # python-chess's ConfigMapping
                if o.elo is not None:
                    settings.update(UCI_LimitStrength=True, UCI_Elo=_clamped_elo(engine, o.elo))
                if o.skill is not None:
                    settings["Skill Level"] = _checked_skill(engine, o.skill)
                if settings:
                    engine.configure(settings)
            except BaseException:
                engine.close()
                raise
            self._cached = engine
        return engine

    async def act(self, turn: Turn) -> Decision:
        import asyncio

        import chess.engine

        # the search blocks this thread: a Ctrl-C (the game's task cancelled) lands here, before it
        await asyncio.sleep(0)

        o = self.options
        nodes = o.nodes if o.nodes is not None or o.depth is not None else PLAY_NODES
        m = mapping(self.game.name, turn.state)
        move = self._engine().play(m.board, chess.engine.Limit(nodes=nodes, depth=o.depth))
        action = m.to_action.get(move.uci()) if move is not None else None
        if action is None:  # cannot happen where the mapping is exact; a legal move keeps the game going
            return Decision(turn.state.legal_actions()[0], failure="engine move not mapped")
        return Decision(action)

    def close(self) -> None:
        engine: Engine | None = getattr(self, "_cached", None)
        if engine is not None:
            engine.close()
            del self._cached


@register_player
class StockfishPlayer(EnginePlayer):
    engine_name = "stockfish"
    games = ("chess",)
    summary = (
        "Stockfish over UCI (chess): nodes=N (default 100000) or depth=D, one thread; elo=N "
        "(UCI_LimitStrength) or skill=K weaken it (not reproducible: the engine's own randomness)"
    )


@register_player
class FairyStockfishPlayer(EnginePlayer):
    engine_name = "fairy-stockfish"
    games = tuple(FAMILY)
    summary = "Fairy-Stockfish over UCI (chess, antichess, crazyhouse): the same keys as stockfish"
