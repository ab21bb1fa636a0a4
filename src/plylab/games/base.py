"""A game is a registry entry; each of its formulations is a registry entry of the game.

A formulation is the text surface a model (or a human) sees: rules, state and action names.
It must be a bijection over the engine's actions, so a surface change never changes the tree.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

import pyspiel

from ..errors import ParseError, UserError
from ..registry import Registry
from ..specs import Params, Spec, bind, parse_spec

if TYPE_CHECKING:
    from ..oracles import Oracle


class Formulation(ABC):
    """Renders rules, state and actions as text and parses a reply back to an engine action."""

    name: ClassVar[str]
    Options: ClassVar[type[Params]] = Params

    def __init__(self, game: "GameDef", options: Params | None = None) -> None:
        self.game = game
        self.options = options if options is not None else self.Options()

    @abstractmethod
    def rules(self) -> str:
        """Rules a careful person could play from, without knowing the original game."""

    @abstractmethod
    def render_state(self, state: pyspiel.State) -> str:
        """The position as the player to move sees it (perfect information: the whole board)."""

    @abstractmethod
    def action_label(self, state: pyspiel.State, action: int) -> str:
        """Short name of an action (legal or not); parse_action inverts it."""

    def seat_name(self, seat: int) -> str:
        return f"Player {seat + 1}"

    def legal_labels(self, state: pyspiel.State) -> dict[str, int]:
        return {self.action_label(state, a): a for a in state.legal_actions()}

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
            raise ParseError("empty answer", ) from None
        legal = {self.normalize(k): v for k, v in self.legal_labels(state).items()}
        if wanted in legal:
            return legal[wanted]
        every = {self.normalize(k): v for k, v in self.all_labels(state).items()}
        if wanted in every:
            err = ParseError(f"'{text.strip()}' is not a legal move now")
            err.kind = "illegal"  # type: ignore[attr-defined]
            raise err
        raise ParseError(f"'{text.strip()}' does not name a move")

    def describe_outcome(self, state: pyspiel.State) -> str:
        returns = state.returns()
        if returns[0] == returns[1]:
            return "The game is a draw."
        winner = 0 if returns[0] > returns[1] else 1
        return f"{self.seat_name(winner)} wins."


@dataclass
class GameDef:
    """A registered game: its OpenSpiel engine, formulations, oracle and recognition patterns."""

    name: str
    title: str
    openspiel_name: str
    openspiel_params: dict[str, object] = field(default_factory=dict)
    summary: str = ""
    # Patterns that mean a reply or trace names the underlying game (recognition rate).
    recognition: tuple[str, ...] = ()
    oracle_factory: Callable[[], "Oracle"] | None = None
    oracle_missing: str = "no exact oracle is available for this game"
    # Move notation for `plylab solve`: text -> engine actions from the initial state.
    parse_moves: Callable[["GameDef", str], list[int]] | None = None
    formulations: Registry[type[Formulation]] = field(default_factory=lambda: Registry("formulation"))

    @cached_property
    def engine(self) -> pyspiel.Game:
        return pyspiel.load_game(self.openspiel_name, dict(self.openspiel_params))

    def new_state(self) -> pyspiel.State:
        return self.engine.new_initial_state()

    def formulation(self, text: str) -> Formulation:
        spec = parse_spec(text, kind="formulation")
        try:
            cls = self.formulations.get(spec.name)
        except UserError as exc:
            raise UserError(f"{exc} (for game '{self.name}')") from None
        return cls(self, bind(spec, cls.Options, kind="formulation"))

    def add_formulation(self, cls: type[Formulation]) -> type[Formulation]:
        return self.formulations.add(cls.name, cls)

    @cached_property
    def _oracle(self) -> "Oracle":
        if self.oracle_factory is None:
            raise UserError(f"{self.oracle_missing} ('{self.name}')")
        return self.oracle_factory()

    def oracle(self) -> "Oracle":
        return self._oracle

    @property
    def has_oracle(self) -> bool:
        return self.oracle_factory is not None

    def replay(self, actions: Sequence[int]) -> pyspiel.State:
        state = self.new_state()
        for a in actions:
            if a not in state.legal_actions():
                raise UserError(f"move {a} is not legal after {list(actions)[: len(state.history())]}")
            state.apply_action(a)
        return state


GAMES: Registry[GameDef] = Registry("game")


def register_game(game: GameDef) -> GameDef:
    return GAMES.add(game.name, game)
