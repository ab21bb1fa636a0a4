"""Suite kinds: what a suite's positions ask and how an answer is scored, one object per kind.

A kind is chosen once, from the game its file's header names (`kind_of`), and everything that
differs between kinds goes through it: building the positions (`build`), checking a read file's
positions (`check`), checking and asking a player (`player`, `uses_model`, `ask`, which also scores
the answer), and what is shown of them (`tables`, `difficulty`, `page`). Two kinds are built in,
registered by the package (`suites/__init__.py`): positions of moves graded by the game's ground
truth (`moves.MOVES`, every game not claimed by another kind), and Clue deduction snapshots scored
against the SAT oracle (`deduction.DEDUCTION`). A new kind is a class with these methods, registered
with `register`; nothing outside it asks which kind a suite is.

This module holds only the protocol and the registry, so the suite file (`file`) can choose a kind
without importing how any kind is built.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import pyspiel

    from ..games import GameDef
    from ..players import RunContext
    from ..render.table import Table
    from .answer import Answer, Question, SuiteResults
    from .content import Position, Suite


class SuiteKind(Protocol):
    """What a suite of one kind does; every method is the kind's own, no caller branches on kinds."""

    name: str  # the kind's name ("moves", "deduction")

    def claims(self, game_spec: str) -> bool:
        """Whether suites of this game are of this kind (the default kind claims none: it takes the rest)."""
        ...

    def game(self, game_spec: str) -> GameDef:
        """The suite's game, made the way this kind's positions are rebuilt."""
        ...

    def build(
        self,
        name: str,
        game_spec: str,
        positions: int,
        *,
        sampler: str | None,
        seed: int,
        formulation: str,
        limit: str,
        from_run: str | None,
        store: Path | None,
        from_puzzles: Path | None,
        margin: float | None,
    ) -> Suite:
        """`plylab suite build`: `positions` positions drawn and graded (the options another kind
        takes and this one does not are refused in one line)."""
        ...

    def check(self, pos: Position, state: pyspiel.State) -> None:
        """A read position's truth whole for this kind (ValueError naming what is wrong); `state` is
        the position rebuilt, its mover already checked (`Position.check`)."""
        ...

    def player(self, game_spec: str, spec: str) -> str | None:
        """A player spec that cannot answer this kind's positions refused in one line, before
        anything runs; returns the hash of the experience memory it reads frozen, if any."""
        ...

    def uses_model(self, game_spec: str, spec: str) -> bool:
        """Whether the player calls a model (the run then counts calls, tokens and cost)."""
        ...

    async def ask(self, question: Question, context: RunContext) -> Answer:
        """One position put to one fresh player, the answer scored against the position's truth."""
        ...

    def tables(self, results: SuiteResults) -> dict[str, Table]:
        """`suite report`'s tables of this kind's runs among `results`, by name."""
        ...

    def difficulty(self, suite: Suite) -> list[str]:
        """`suite show`'s lines on how hard the positions are."""
        ...

    def page(self, suite: Suite, pos: Position, answers: list[Answer]) -> dict[str, object]:
        """A position as the site's suite page draws it (`reports/templates/suite.html`), with every answer."""
        ...


DEFAULT = "moves"  # the kind of every game no other kind claims
_KINDS: dict[str, SuiteKind] = {}


def register(kind: SuiteKind) -> SuiteKind:
    """Add a kind to the registry (in order: `kinds()` lists them, and the report's tables, so)."""
    _KINDS[kind.name] = kind
    return kind


def kinds() -> list[SuiteKind]:
    """Every registered kind, in the order registered."""
    return list(_KINDS.values())


def kind_of(game_spec: str) -> SuiteKind:
    """The kind of a suite of `game_spec` (its header's `game`): the kind that claims the game, else
    the default, positions of moves."""
    for kind in _KINDS.values():
        if kind.claims(game_spec):
            return kind
    return _KINDS[DEFAULT]


def of_kind(results: SuiteResults, kind: SuiteKind) -> SuiteResults:
    """The runs of `results` whose suites are of `kind`."""
    return type(results)(tuple(r for r in results.runs if kind_of(r[0].game) is kind))
