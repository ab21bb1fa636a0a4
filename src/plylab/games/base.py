"""A game is a registry entry; each of its formulations is a registry entry of the game.

A formulation is the text surface a model (or a human) sees: rules, state and action names.
It must be a bijection over the engine's actions, so a surface change never changes the tree.
"""

from __future__ import annotations

import dataclasses
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, cast

import pyspiel
from typing_extensions import TypeVar

from ..errors import ParseError, UserError
from ..oracles.graded import ExactGrader, Grader, GradingOracle, SelfGrader
from ..quiet import engine_quiet
from ..registry import Registry
from ..specs import Params, bind, parse_spec
from ..words import count
from .check import check_game
from .params import (
    MAX_BOARD_CELLS,
    bind_params,
    board_cells,
    board_sides,
    canonical,
    describe,
    engine_message,
    parameter_types,
    play_cost,
    play_cost_limit,
    split_game,
)

if TYPE_CHECKING:
    from ..oracles import Oracle


OptionsT = TypeVar("OptionsT", bound=Params, default=Params)


class Formulation(ABC, Generic[OptionsT]):
    """Renders rules, state and actions as text and parses a reply back to an engine action.

    A formulation with spec keys names its options model twice: `class Mine(Formulation[MyOptions])`
    and `Options = MyOptions`, so `self.options` is typed."""

    name: ClassVar[str]
    Options: ClassVar[type[Params]] = Params
    # The legal moves are listed (the prompt, the human screen, a position's own line) sorted by name,
    # as plybench 3.0.5's prompt adapter lists them under `order_actions`: the order then carries
    # nothing the names do not (a disguise's cell order, a code word's action number). False: the
    # engine's order, kept where the names spell it out (Nim, Connect Four), as plybench keeps it.
    order_actions: ClassVar[bool] = True

    def __init__(self, game: GameDef, options: OptionsT | None = None) -> None:
        self.game = game
        self.options: OptionsT = options if options is not None else cast(OptionsT, self.Options())

    @abstractmethod
    def rules(self) -> str:
        """Rules a careful person could play from, without knowing the original game."""

    @abstractmethod
    def render_state(self, state: pyspiel.State) -> str:
        """The position as the player to move may know it: under perfect information the whole
        board; under hidden information that player's information state, never the whole state."""

    def render_view(self, state: pyspiel.State, seat: int) -> str:
        """The position as `seat` may know it, whoever is to move (a human's final position)."""
        return self.render_state(state)

    def render_whole(self, state: pyspiel.State) -> str | None:
        """The whole state, hands and dice revealed, for a replay's reader (never for a player);
        None where the view is already the whole state (perfect information)."""
        return None

    def seen_label(self, state: pyspiel.State, action: int, seat: int) -> str | None:
        """How `seat` learns of `action` played in `state` (a chance draw, another seat's move),
        or None when it does not see it. Under perfect information every move is seen."""
        return self.action_label(state, action)

    @abstractmethod
    def action_label(self, state: pyspiel.State, action: int) -> str:
        """Short name of an action (legal or not); parse_action inverts it."""

    def seat_name(self, seat: int) -> str:
        return f"Player {seat + 1}"

    def title(self) -> str:
        """The game's name as this surface gives it (the human screen's heading): the game's own title.
        A surface that never names the game (an obfuscation) gives one of its own, so no screen does."""
        return self.game.title

    def legal_labels(self, state: pyspiel.State) -> dict[str, int]:
        """Name -> action of every legal move, in the order they are listed (`order_actions`)."""
        return self.listed({self.action_label(state, a): a for a in state.legal_actions()})

    def listed(self, labels: dict[str, int]) -> dict[str, int]:
        """Legal moves (name -> action, in the engine's order) in the order they are listed."""
        return dict(sorted(labels.items())) if self.order_actions else labels

    def all_labels(self, state: pyspiel.State) -> dict[str, int]:
        game = state.get_game()
        return {self.action_label(state, a): a for a in range(game.num_distinct_actions())}

    @staticmethod
    def normalize(text: str) -> str:
        return re.sub(r"\s+", " ", text.strip().strip("`'\".").strip()).lower()

    def parse_action(self, state: pyspiel.State, text: str) -> int:
        """Map a reply's answer to a legal action; ParseError(kind=...) says why not."""
        wanted = self.normalize(text)
        if not wanted:
            raise ParseError("empty answer", kind="empty") from None
        legal = {self.normalize(k): v for k, v in self.legal_labels(state).items()}
        if wanted in legal:
            return legal[wanted]
        every = {self.normalize(k): v for k, v in self.all_labels(state).items()}
        if wanted in every:
            raise ParseError(f"'{text.strip()}' is not a legal move now", kind="illegal")
        raise ParseError(f"'{text.strip()}' does not name a move")

    def describe_outcome(self, state: pyspiel.State) -> str:
        returns = state.returns()
        best = max(returns)
        winners = [s for s, r in enumerate(returns) if r == best]
        if len(winners) > 1:
            return "The game is a draw."
        return f"{self.seat_name(winners[0])} wins."


PROBE_PLIES = 200  # how far a parametrised game is played (first moves) before it is accepted


def _stuck_ply(state: pyspiel.State, game: GameDef) -> int | None:
    """The ply at which playing the first legal move (the first outcome at chance) reaches a
    position that is not over and has no legal move (`hex:board_size=1` after one move); None.
    A position with more legal moves than the start is costed again (`game.refuse_costly`)."""
    widest = 0
    for ply in range(PROBE_PLIES):
        if state.is_terminal():
            return None
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            if not outcomes:
                return ply
            state.apply_action(outcomes[0][0])
            continue
        legal = state.legal_actions()
        if not legal:
            return ply
        if len(legal) > widest:
            widest = len(legal)
            game.refuse_costly(widest)
        state.apply_action(legal[0])
    return None


def alias_pattern(alias: str) -> str:
    """A recognition pattern for a name: words may be joined by spaces, '-' or '_' ('dots and boxes')."""
    words = [re.escape(w) for w in re.split(r"[\s_-]+", alias.strip()) if w]
    return r"\b" + r"[\s_-]*".join(words) + r"\b"


TruthKind = Literal["exact", "equilibrium", "engine"]


@dataclass(frozen=True)
class GroundTruth:
    """A game's ground truth, declared once with the game (`GameDef.ground_truth`): what grades it.

    `kind`: an exact table or solver (`exact`: every move's game value, a zero loss is optimal), an
    equilibrium of a small game of hidden information (`equilibrium`: the payoff given up against
    it), or an engine for chess and its variants (`engine`: the expected score given up by its
    search). `name`: who says so ("minimax table", "stockfish"). `table`: game -> its exact table or
    equilibrium (what `GameDef.oracle()` returns, built once); None for an engine, which searches
    each position at the run's limit. The session asks `grader` and never tells the kinds apart; a
    report asking what grades a game reads `kind` and `name`. `engine`: for an engine other than
    the chess family's UCI engines (gnubg for backgammon), (game, limit) -> the engine that grades
    each decision itself, None where it is not installed.
    """

    kind: TruthKind
    name: str
    table: Callable[[GameDef], Oracle] | None = None
    engine: Callable[[GameDef, str], GradingOracle | None] | None = None

    @property
    def chess(self) -> bool:
        """Graded by a chess-family UCI engine, whose grades carry the evaluations lichess's figures
        (ACPL, accuracy) are made from; not gnubg's backgammon."""
        return self.kind == "engine" and self.engine is None

    def grader(self, game: GameDef, limit: str = "") -> Grader | None:
        """The grader of `game`'s moves in one run (`limit`: an engine's search limit, '' for its
        default); None where it cannot grade here (the engine is not installed)."""
        if self.engine is not None:
            own = self.engine(game, limit)
            return None if own is None else SelfGrader(own, executor=getattr(own, "executor", None))
        if self.kind == "engine":
            from ..oracles.engine import Ungraded, engine_oracle  # python-chess: only when chess is scored

            engine = engine_oracle(game.spec, limit)
            if engine is None:
                return None
            return SelfGrader(engine, ungraded=(Ungraded,), executor=engine.executor)
        oracle = game.oracle()
        # an equilibrium grades each decision itself, and so does an exact table without game values
        # (Pig's win probabilities); an exact table of game values is mapped onto the scale
        if self.kind == "equilibrium" or not hasattr(oracle, "move_values"):
            return SelfGrader(cast(GradingOracle, oracle))
        return ExactGrader(oracle)


@dataclass
class GameDef:
    """A registered game: its OpenSpiel engine, formulations, ground truth and recognition patterns.

    `params` are the OpenSpiel parameters a user set in the game name (`mnk:m=4,n=4,k=3`); they are
    already merged into `openspiel_params`. `spec` is the canonical name of the game as played.
    """

    name: str
    title: str
    openspiel_name: str
    openspiel_params: dict[str, object] = field(default_factory=dict)
    summary: str = ""
    # Patterns that mean a reply or trace names the underlying game (recognition rate): the game's
    # names and their spellings only, as the paper counts them (003 l.305, Table 5 caption).
    recognition: tuple[str, ...] = ()
    # Wider wording (other languages, jargon of the game) counted only under `--recognize wide`.
    recognition_wide: tuple[str, ...] = ()
    # Other names of the game; each also becomes a recognition pattern.
    aliases: tuple[str, ...] = ()
    # What grades its moves (GroundTruth above: an exact table, an equilibrium, an engine); None: nothing.
    ground_truth: GroundTruth | None = None
    oracle_missing: str = "no exact oracle is available for this game"
    # Move notation for `plylab solve`: text -> engine actions from the initial state.
    parse_moves: Callable[[GameDef, str], list[int]] | None = None
    # Its inverse: how `plylab solve` writes an engine action. None: the standard formulation's label.
    move_name: Callable[[GameDef, int], int | str] | None = None
    formulations: Registry[type[Formulation[Any]]] = field(default_factory=lambda: Registry("formulation"))
    params: dict[str, object] = field(default_factory=dict)
    # OpenSpiel parameters fixed by plylab (e.g. colour codes off), not settable in the name.
    fixed_params: frozenset[str] = frozenset()
    # How a game with user parameters gets its ground truth (the generic table where it fits); None = none.
    derived_truth: Callable[[GameDef], GroundTruth | None] | None = None
    # The title of a parametrised instance (e.g. Nim's pile set); default: title plus parameters.
    title_for: Callable[[GameDef], str] | None = None
    # What the game's own formulations need of its parameters, which OpenSpiel does not check
    # (Nim's pile sizes positive): raises UserError with one line; None = nothing more.
    check_params: Callable[[GameDef], None] | None = None
    # Why no person or model can play it from text (an information state too large to read); None: they can.
    not_for_text: str | None = None
    # How a finished game is counted where OpenSpiel's returns are not the game's result (Go: GNU Go's
    # count, dead stones removed): the returns and the rules applied, in words; None: OpenSpiel's returns.
    count: Callable[[pyspiel.State], tuple[list[float], str]] | None = None

    def __post_init__(self) -> None:
        own = tuple(alias_pattern(a) for a in self.aliases)
        self.recognition = tuple(self.recognition) + tuple(p for p in own if p not in self.recognition)

    @property
    def spec(self) -> str:
        """The game as named in a plan: `nim` or `nim:pile_sizes=2;4;6`."""
        return canonical(self.name, self.params)

    @property
    def parameters(self) -> dict[str, object]:
        """Every settable parameter with its value in this game (OpenSpiel default unless set)."""
        defaults = parameter_types(self.openspiel_name)
        merged = {**defaults, **self.openspiel_params}
        return {k: v for k, v in sorted(merged.items()) if k not in self.fixed_params}

    def parameters_text(self) -> str:
        return describe(self.parameters)

    def with_params(self, raw: Mapping[str, str]) -> GameDef:
        """This game under OpenSpiel parameters given as text; itself when they change nothing."""
        params = bind_params(self.name, self.openspiel_name, raw, self.fixed_params)
        base = {**parameter_types(self.openspiel_name), **self.openspiel_params}
        changed = {k: v for k, v in params.items() if base.get(k) != v}
        if not changed:
            return self
        if 0 in board_sides(changed):
            raise UserError(
                f"game '{canonical(self.name, changed)}' has a board side of 0; "
                f"parameters: {self.parameters_text()}"
            )
        if (cells := board_cells({**base, **changed})) > MAX_BOARD_CELLS:
            raise UserError(
                f"game '{canonical(self.name, changed)}' is too large: a board of {cells:,} cells "
                f"(at most {MAX_BOARD_CELLS:,}); parameters: {self.parameters_text()}"
            )
        shown = ", ".join(f"{k}={v}" for k, v in sorted(changed.items()))
        derived = dataclasses.replace(
            self,
            title=f"{self.title} ({shown})",
            openspiel_params={**self.openspiel_params, **changed},
            params=changed,
            ground_truth=None,
            recognition=(),
        )
        derived.recognition = self.recognition
        if self.check_params is not None:
            self.check_params(derived)
        # OpenSpiel may crash, hang or read out of bounds on a bad parameter: a child plays it first
        check_game(derived.spec, self.openspiel_name, derived.openspiel_params, self.parameters_text())
        try:  # the engine's own check first: a title or an oracle bound may read the parameters
            with engine_quiet():
                state = derived.new_state()
                str(state)
                derived.refuse_costly(len(state.legal_actions()) if state.is_player_node() else 0)
                stuck = not (state.is_chance_node() or state.is_terminal() or state.legal_actions())
                stuck_at = None if state.is_terminal() or stuck else _stuck_ply(state.clone(), derived)
        except (pyspiel.SpielError, ValueError, IndexError, MemoryError) as exc:
            raise UserError(
                f"game '{derived.spec}' is not valid: {engine_message(exc)}; "
                f"parameters: {self.parameters_text()}"
            ) from None
        if state.is_terminal() or stuck:
            raise UserError(
                f"game '{derived.spec}' is over before it starts; parameters: {self.parameters_text()}"
            )
        if stuck_at is not None:
            raise UserError(
                f"game '{derived.spec}' cannot be played: after {stuck_at} move(s) a position that is not "
                f"over has no legal move; parameters: {self.parameters_text()}"
            )
        if self.title_for is not None:
            derived.title = self.title_for(derived)
        derived.ground_truth = self.derived_truth(derived) if self.derived_truth is not None else None
        return derived

    def refuse_costly(self, widest: int) -> None:
        """UserError, before anything is built, where one game would store more than the limit.
        `widest` is the most legal moves seen so far: 0 where the game starts with chance (a deal),
        and its moves alone (each stored with the moves before it) are then the least it costs."""
        longest = self.engine.max_game_length()
        cost, most = play_cost(longest, max(widest, 1)), play_cost_limit()
        if cost > most:
            moves = (
                f"up to {count(longest, 'move')} of {count(widest, 'legal move')} each cost"
                if widest
                else f"up to {count(longest, 'move')}, each stored with the moves before it, cost at least"
            )
            raise UserError(
                f"game '{self.spec}' is too large to play: {moves} {cost:,} stored entries a game "
                f"(at most {most:,}, PLYLAB_GAME_LIMIT); make it smaller"
            )

    @property
    def perfect_information(self) -> bool:
        """Every seat sees the whole state (else each sees its information state)."""
        info = self.engine.get_type().information
        return bool(info == pyspiel.GameType.Information.PERFECT_INFORMATION)

    @cached_property
    def engine(self) -> pyspiel.Game:
        with engine_quiet():  # quoridor warns of "known issues" on stderr at every load
            return pyspiel.load_game(self.openspiel_name, dict(self.openspiel_params))

    def new_state(self) -> pyspiel.State:
        return self.engine.new_initial_state()

    def formulation(self, text: str) -> Formulation[Any]:
        spec = parse_spec(text, kind="formulation")
        try:
            cls = self.formulations.get(spec.name)
        except UserError as exc:
            raise UserError(f"{exc} (for game '{self.name}')") from None
        return cls(self, bind(spec, cls.Options, kind="formulation"))

    def add_formulation(self, cls: type[Formulation[Any]]) -> type[Formulation[Any]]:
        return self.formulations.add(cls.name, cls)

    @cached_property
    def _oracle(self) -> Oracle:
        truth = self.ground_truth
        if truth is None or truth.table is None:
            raise UserError(f"{self.oracle_missing} ('{self.spec}')")
        return truth.table(self)

    def oracle(self) -> Oracle:
        """The game's exact table or equilibrium, built once per process (an engine has none)."""
        return self._oracle

    @property
    def has_oracle(self) -> bool:
        """Whether the game has an exact table or an equilibrium (`oracle()`), not only an engine."""
        return self.ground_truth is not None and self.ground_truth.table is not None

    def replay(self, actions: Sequence[int]) -> pyspiel.State:
        state = self.new_state()
        for a in actions:
            if a not in state.legal_actions():
                raise UserError(f"move {a} is not legal after {list(actions)[: len(state.history())]}")
            state.apply_action(a)
        return state


# Games with a command of their own (`plylab clue`), declared as entry points of this group in pyproject.toml:
# found by name (their module is imported on first use and registers them with `add_unlisted`), never listed
# with the games `plylab run` plays, so `plylab games` is the same in every process.
UNLISTED_GROUP = "plylab.unlisted_games"


class GameRegistry(Registry[GameDef]):
    """Games by name; a name may carry OpenSpiel parameters (`mnk:m=4,n=4,k=3`)."""

    def __init__(self) -> None:
        super().__init__("game")
        self._derived: dict[str, GameDef] = {}
        self._unlisted: Registry[GameDef] = Registry("game", group=UNLISTED_GROUP)

    def add_unlisted(self, game: GameDef) -> GameDef:
        """Register a game its entry point declares in `UNLISTED_GROUP` (its module calls this when imported)."""
        return self._unlisted.add(game.name, game)

    def _base(self, name: str) -> GameDef:
        if name in self._items or name not in self._unlisted:
            return super().get(name)
        return self._unlisted.get(name)

    def get(self, name: str) -> GameDef:
        if ":" not in name:
            return self._base(name.strip())
        found = self._derived.get(name)
        if found is None:
            base_name, raw = split_game(name)
            found = self._derived[name] = self._base(base_name).with_params(raw)
        return found

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        return super().__contains__(name.partition(":")[0].strip())


GAMES: GameRegistry = GameRegistry()


def register_game(game: GameDef) -> GameDef:
    return GAMES.add(game.name, game)
