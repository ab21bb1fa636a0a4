"""The player base classes and the one registry of players of every game family.

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

from ..errors import UserError, one_of
from ..models.call import SEEDING, Attempt
from ..registry import Registry, declared_name
from ..seeds import LLM_LISTING, LLM_PROMPT
from ..specs import Params, Spec, bind, parse_spec

if TYPE_CHECKING:
    import pyspiel

    from ..games import Formulation, GameDef
    from ..models.cache import ReplyCache


@dataclass
class Turn:
    """What a player is asked to move in. `state` is the engine's state, for the engine's own
    search (ISMCTS samples worlds from the mover's information state); what a player reads is
    `view`, the formulation's rendering of what the mover may know, never the whole state."""

    game: GameDef
    formulation: Formulation
    state: pyspiel.State  # a clone: players may explore it freely
    seat: int
    ply: int
    job_key: str  # identifies the game job; keys the response cache with ply and attempt

    @property
    def view(self) -> str:
        """The position as the mover may know it (the whole board under perfect information)."""
        return self.formulation.render_state(self.state)


@dataclass
class Decision:
    """A player's answer: an action, or None for a failure that forfeits the game."""

    action: int | None
    attempts: list[Attempt] = field(default_factory=list)
    failure: str | None = None  # why action is None, or why a fallback move was played
    note: dict[str, object] = field(default_factory=dict)  # player-specific trace (plans, retrieval), JSON
    # What the mover states beside its action (a Clue turn's deductions), for the game's annotator
    # (harness.hooks) to judge and record (narrowing it to its own type); not stored as it is.
    stated: object = None

    @property
    def final(self) -> Attempt | None:
        return self.attempts[-1] if self.attempts else None


@dataclass
class RunContext:
    """What the harness lends every player of a run: where the store is and the response cache.

    `cache` is a `plylab.models.ResponseCache` or a worker's view of one (`ReplyCache`; imported for typing only, so classic players never
    import the model stack). `job_key` is set per game.
    """

    store_path: Path | None = None
    cache: ReplyCache | None = None
    job_key: str = ""
    extra: dict[str, object] = field(default_factory=dict)  # the run's rules (harness.store.Store.rules)

    @property
    def seeding(self) -> int:
        """The run's per-call seed rule (`plylab.models.call.SEEDING`; 1: each caller's old one)."""
        rule = self.extra.get("seeding", SEEDING)
        if not isinstance(rule, int | float | str):
            raise TypeError(f"the run's seed rule is not a number: {rule!r}")
        return int(rule)

    @property
    def llm_prompt(self) -> str:
        """The run's text prompt for `llm` when its spec names none (`LLM_PROMPT`; `reason` for a
        run stored before the action-only default)."""
        return str(self.extra.get("llm_prompt", LLM_PROMPT))

    @property
    def llm_listing(self) -> str:
        """How the run's `llm` players list the legal moves (`LLM_LISTING`, sorted by name; `engine`
        for a run stored before, which resumes with the prompts its cached replies answered)."""
        return str(self.extra.get("llm_listing", LLM_LISTING))


@dataclass(frozen=True)
class GameResult:
    """What a player learns when a game ends."""

    returns: tuple[float, ...]
    seat: int
    forfeit_by: int | None
    history: tuple[int, ...] = ()  # every action played, so a learner sees the game-ending move too


OptionsT = TypeVar("OptionsT", bound=Params, default=Params)
ViewT = TypeVar(
    "ViewT", default=Any
)  # what a seat may know when it is asked to act (a `Turn`, a Clue `ClueView`)
DecisionT = TypeVar("DecisionT", default=Any)  # what it answers (a `Decision`, a Clue `ClueDecision`)


class BasePlayer(ABC, Generic[OptionsT, ViewT, DecisionT]):
    """What every player of every game family shares: a spec's options, a seeded stream, the run's
    context, a check before any game starts, and `act`. A family's base (`Player` for OpenSpiel
    two-player games, `plylab.clue.CluePlayer` for Clue) fixes what a turn shows and what it answers.
    """

    # What a spec names: the player's entry point in pyproject.toml, set by `register_player`.
    name: ClassVar[str]
    Options: ClassVar[type[Params]] = Params
    summary: ClassVar[str] = ""
    # The game family this player plays, and the command that plays it (named when a spec is refused).
    family: ClassVar[str]
    command: ClassVar[str]
    noun: ClassVar[str] = "player"  # how messages name the family's players ("Clue player")
    # True when the player calls a language model (its games stay in the process that owns the cache).
    uses_model: ClassVar[bool] = False

    def __init__(self, spec: Spec, options: OptionsT, seed: int, context: RunContext | None = None) -> None:
        self.context = context or RunContext()
        self.spec = spec
        self.options: OptionsT = options
        self.seed = seed

    @cached_property
    def rng(self) -> random.Random:
        """The player's own seeded stream (built on first use: seeding costs more than a move)."""
        return random.Random(self.seed)

    @classmethod
    def prepare(cls, options: Params) -> None:
        """Fail fast, before any game starts, on what would fail every game (an unreachable model)."""

    @abstractmethod
    async def act(self, turn: ViewT) -> DecisionT: ...

    def close(self) -> None:
        """Release per-game resources."""


class Player(BasePlayer[OptionsT, Turn, Decision]):
    """A player of the OpenSpiel two-player games. Subclasses set `name`, and `Options` (a pydantic
    model of spec keys) as their type argument: `class MyPlayer(Player[MyOptions])`, so
    `self.options` is a `MyOptions`."""

    family = "two-player"
    command = "plylab run"
    # True when the player burns CPU (search) rather than waiting on I/O: eligible for worker processes.
    cpu_bound: ClassVar[bool] = False
    # True when a person reads the rendered position (stored with each move; model players always are).
    shows_observation: ClassVar[bool] = False
    # True when a person types the moves: the run shows no progress bar and plays one game at a time.
    interactive: ClassVar[bool] = False
    # Games this player supports; None = every game with the usual two-player API.
    games: ClassVar[tuple[str, ...] | None] = None

    def __init__(
        self, spec: Spec, options: OptionsT, game: GameDef, seed: int, context: RunContext | None = None
    ) -> None:
        super().__init__(spec, options, seed, context)
        self.game = game

    async def game_over(self, result: GameResult) -> None:
        """Called once per game with the outcome (learning players update memory here)."""

    @classmethod
    def refusal(cls, game: GameDef) -> str | None:
        """Why this player cannot play `game`, in one line; None when it can. A person or a model
        reads the position as text, so neither plays a game whose view is too large to read."""
        if game.not_for_text is not None and (cls.uses_model or cls.shows_observation):
            return f"it is not for text players ({game.not_for_text})"
        return None

    @classmethod
    def memory_hash(cls, options: OptionsT, game: GameDef) -> str | None:
        """The content hash of the experience memory this player reads, frozen (REAPER's
        `memory=PATH`), so a result names what played beyond the spec: a file retrained at the
        same path is another player. None for a player whose spec names everything."""
        return None

    @classmethod
    def check_store(cls, options: OptionsT, game: GameDef, store_path: Path) -> None:
        """Fail, before the run's row is written, on what this player needs of the store the run
        plays into (`best_response`: the run whose player it answers), so a refusal leaves no
        failed run behind. Most players need nothing of it."""


# Every player of every family, by name: plylab's own and a contributor's package's are declared in its
# pyproject.toml (`[project.entry-points."plylab.players"]`, name = "module:Class") and imported on first use.
PLAYER_GROUP = "plylab.players"
PLAYERS: Registry[type[BasePlayer[Any, Any, Any]]] = Registry("player", group=PLAYER_GROUP)
P = TypeVar("P", bound=BasePlayer[Any, Any, Any])


def register_player(cls: type[P]) -> type[P]:
    """Register a player of any family (one registry for every game) under the name its entry point
    declares, written there once; a class no entry point declares (a test's toy) sets `name` itself."""
    name = cls.__dict__.get("name") or declared_name(PLAYER_GROUP, cls)
    if not name:
        raise ValueError(
            f"{cls.__module__}:{cls.__qualname__} has no name: declare it under "
            f'[project.entry-points."{PLAYER_GROUP}"] in pyproject.toml'
        )
    cls.name = name
    PLAYERS.add(name, cls)
    return cls


def family_names(base: type[BasePlayer[Any, Any, Any]]) -> list[str]:
    """The registered players of `base`'s family, in name order."""
    return [n for n in PLAYERS.names() if issubclass(PLAYERS.get(n), base)]


@lru_cache(maxsize=1024)
def resolve(spec_text: str, base: type[P]) -> tuple[Spec, type[P], Params]:
    """Validate a spec for a player of `base`'s family, without building it (cheap; used to reject
    bad input up front). A player of another family is one line naming the players accepted."""
    spec = parse_spec(spec_text, kind=f"{base.noun} spec")
    if spec.name not in PLAYERS:
        raise one_of(base.noun, spec.name, family_names(base))
    cls = PLAYERS.get(spec.name)
    if not issubclass(cls, base):
        raise UserError(
            f"player '{spec.name}' plays {cls.family} games (`{cls.command}`), not {base.family} games; "
            f"`{base.command}` takes: {', '.join(sorted(family_names(base)))}"
        )
    return spec, cls, bind(spec, cls.Options, kind=f"{base.noun} spec")


def player_class(spec_text: str) -> tuple[Spec, type[Player[Any]], Params]:
    """A two-player game's player spec, validated (see `resolve`)."""
    return resolve(spec_text, Player)


def make_player(spec_text: str, game: GameDef, seed: int, context: RunContext | None = None) -> Player[Any]:
    spec, cls, options = player_class(spec_text)
    if cls.games is not None and game.name not in cls.games:
        raise UserError(f"player '{cls.name}' does not play '{game.name}'; it plays: {', '.join(cls.games)}")
    if (why := cls.refusal(game)) is not None:
        raise UserError(f"player '{cls.name}' cannot play '{game.spec}': {why}")
    return cls(spec, options, game, seed, context)
