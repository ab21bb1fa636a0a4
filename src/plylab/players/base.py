"""The Player protocol and registry.

A player is built from a spec string for one game (`make_player`), so per-game state (an MCTS
tree, a random stream, an LLM conversation) never leaks between games played concurrently.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic

from typing_extensions import TypeVar

from ..errors import UserError
from ..models.call import SEEDING, Attempt
from ..registry import Registry
from ..specs import Params, Spec, bind, parse_spec

if TYPE_CHECKING:
    import pyspiel

    from ..games import Formulation, GameDef
    from ..models.cache import ResponseCache


@dataclass
class Turn:
    """Everything a player may know when it is asked for a move (and nothing it may not)."""

    game: GameDef
    formulation: Formulation
    state: pyspiel.State  # a clone: players may explore it freely
    seat: int
    ply: int
    job_key: str  # identifies the game job; keys the response cache with ply and attempt


@dataclass
class Decision:
    """A player's answer: an action, or None for a failure that forfeits the game."""

    action: int | None
    attempts: list[Attempt] = field(default_factory=list)
    failure: str | None = None  # why action is None, or why a fallback move was played
    note: dict[str, Any] = field(default_factory=dict)  # player-specific trace (plans, retrieval)

    @property
    def final(self) -> Attempt | None:
        return self.attempts[-1] if self.attempts else None


@dataclass
class RunContext:
    """What the harness lends every player of a run: where the store is and the response cache.

    `cache` is a `plylab.models.ResponseCache` (imported for typing only, so classic players never
    import the model stack). `job_key` is set per game.
    """

    store_path: Path | None = None
    cache: ResponseCache | None = None
    job_key: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def seeding(self) -> int:
        """The run's per-call seed rule (`plylab.models.call.SEEDING`; 1: each caller's old one)."""
        return int(self.extra.get("seeding", SEEDING))


@dataclass(frozen=True)
class GameResult:
    """What a player learns when a game ends."""

    returns: tuple[float, ...]
    seat: int
    forfeit_by: int | None
    history: tuple[int, ...] = ()  # every action played, so a learner sees the game-ending move too


OptionsT = TypeVar("OptionsT", bound=Params, default=Params)


class Player(ABC, Generic[OptionsT]):
    """Subclasses set `name`, and `Options` (a pydantic model of spec keys) as their type argument:
    `class MyPlayer(Player[MyOptions])`, so `self.options` is a `MyOptions`."""

    name: ClassVar[str]
    Options: ClassVar[type[Params]] = Params
    summary: ClassVar[str] = ""
    # True when the player burns CPU (search) rather than waiting on I/O: eligible for worker processes.
    cpu_bound: ClassVar[bool] = False
    # True when the player calls a language model (its games stay in the process that owns the cache).
    uses_model: ClassVar[bool] = False
    # True when a person reads the rendered position (stored with each move; model players always are).
    shows_observation: ClassVar[bool] = False
    # True when a person types the moves: the run shows no progress bar and plays one game at a time.
    interactive: ClassVar[bool] = False
    # Games this player supports; None = every game with the usual two-player API.
    games: ClassVar[tuple[str, ...] | None] = None

    def __init__(
        self, spec: Spec, options: OptionsT, game: GameDef, seed: int, context: RunContext | None = None
    ) -> None:
        self.context = context or RunContext()
        self.spec = spec
        self.options: OptionsT = options
        self.game = game
        self.seed = seed

    @cached_property
    def rng(self) -> random.Random:
        """The player's own seeded stream (built on first use: seeding costs more than a move)."""
        return random.Random(self.seed)

    @classmethod
    def preflight(cls, options: Params) -> None:
        """Fail fast, before any game starts, on what would fail every game (an unreachable model)."""

    @abstractmethod
    async def act(self, turn: Turn) -> Decision: ...

    async def game_over(self, result: GameResult) -> None:
        """Called once per game with the outcome (learning players update memory here)."""

    def close(self) -> None:
        """Release per-game resources."""


PLAYERS: Registry[type[Player[Any]]] = Registry("player")


def register_player(cls: type[Player[Any]]) -> type[Player[Any]]:
    return PLAYERS.add(cls.name, cls)


@lru_cache(maxsize=1024)
def player_class(spec_text: str) -> tuple[Spec, type[Player[Any]], Params]:
    """Validate a spec without building a player (cheap; used to reject bad input up front)."""
    spec = parse_spec(spec_text, kind="player spec")
    cls = PLAYERS.get(spec.name)
    return spec, cls, bind(spec, cls.Options, kind="player spec")


def make_player(spec_text: str, game: GameDef, seed: int, context: RunContext | None = None) -> Player[Any]:
    spec, cls, options = player_class(spec_text)
    if cls.games is not None and game.name not in cls.games:
        raise UserError(f"player '{cls.name}' does not play '{game.name}'; it plays: {', '.join(cls.games)}")
    return cls(spec, options, game, seed, context)
