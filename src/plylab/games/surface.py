"""Building blocks shared by formulations (a game's text surface).

`FixedLabels`: most formulations name an action the same way in every position, so the names
are computed once and a reply parses with one lookup instead of re-rendering every action (which
also keeps the exhaustive formulation tests fast). `turn_line`: the closing line of a position.
`LEGAL_LINE`: how a position that lists its legal moves starts that line, so `without_legal` can take
it out for the llm player's `legal=hidden`.
"""

from __future__ import annotations

from abc import abstractmethod
from functools import cached_property
from typing import Any

import pyspiel

from ..errors import ParseError
from .base import Formulation, OptionsT

# A position that lists its legal moves does it on one line starting so (generic, hidden, relabel).
LEGAL_LINE = "Legal moves: "


def without_legal(text: str) -> str:
    """A rendered position without its line of legal moves (`legal=hidden`)."""
    return "\n".join(line for line in text.split("\n") if not line.startswith(LEGAL_LINE))


def turn_line(f: Formulation[Any], state: pyspiel.State) -> str:
    """Who is to move (a picture alone may not say); at the end, the result."""
    mover = state.current_player()
    if mover >= 0:
        return f"You are {f.seat_name(mover)}; it is your move."
    return f"Game over. {f.describe_outcome(state)}"


class FixedLabels(Formulation[OptionsT]):
    """A formulation whose action names do not depend on the position."""

    @abstractmethod
    def label(self, action: int) -> str:
        """The name of an action, the same in every position."""

    def canonical(self, text: str) -> str:
        """Rewrite a free-form reply into a label where the formulation can (hook); else unchanged."""
        return text

    @cached_property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.label(a) for a in range(self.game.engine.num_distinct_actions()))

    @cached_property
    def _actions(self) -> dict[str, int]:
        actions = {self.normalize(x): a for a, x in enumerate(self.labels)}
        if len(actions) != len(self.labels):
            raise ValueError(f"formulation '{self.name}' gives two actions the same name")
        return actions

    def action_label(self, state: pyspiel.State, action: int) -> str:
        return self.labels[action]

    def legal_labels(self, state: pyspiel.State) -> dict[str, int]:
        return self.listed({self.labels[a]: a for a in state.legal_actions()})

    def all_labels(self, state: pyspiel.State) -> dict[str, int]:
        return {x: a for a, x in enumerate(self.labels)}

    def parse_action(self, state: pyspiel.State, text: str) -> int:
        wanted = self.normalize(text)
        if not wanted:
            raise ParseError("empty answer", kind="empty")
        action = self._actions.get(wanted)
        if action is None:
            action = self._actions.get(self.normalize(self.canonical(text)))
        if action is None:
            raise ParseError(f"'{text.strip()}' does not name a move")
        if action not in state.legal_actions():
            raise ParseError(f"'{text.strip()}' is not a legal move now", kind="illegal")
        return action
