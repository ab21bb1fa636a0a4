"""What a suite holds: its positions with their truth and its header's fields, each field checked,
in the one canonical JSON spelling that its hashes are taken over.

Below the suite file (`file`, which reads and writes it) and the suite kinds (`kinds`), which both
read these types: a position's content is the same for every kind; what one kind adds to a line
(a Clue snapshot's `entailed` facts) is `Position.more`, checked by that kind.
"""

from __future__ import annotations

import hashlib
import json
import math
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from ..oracles.graded import Grade

if TYPE_CHECKING:
    import pyspiel

    from ..games import GameDef

VERSION = 1  # the file format; a reader refuses a version it does not know
INT64 = 2**63 - 1  # the largest whole number the store (SQLite) and the seeds take


def canonical_json(value: object) -> str:
    """The one spelling of a value: sorted keys, no spaces, so equal content is equal bytes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class MoveTruth:
    """One legal move of a position: its engine action, its standard label, its graded value."""

    action: int
    label: str
    value: float


@dataclass(frozen=True)
class Position:
    """One decision of the suite: where it is reached from and what every legal move is worth.

    `history`: every action from the initial state (chance outcomes included), as OpenSpiel numbers
    them. `ply`: decisions made before it. `features`: its measured difficulty (`features.FEATURES`).
    `unit`, `span`, `exact`, `tolerance`, `source`: the grade's (oracles.graded.Grade)."""

    index: int
    history: tuple[int, ...]
    mover: int
    ply: int
    moves: tuple[MoveTruth, ...]
    unit: str
    span: float
    exact: bool
    tolerance: float
    source: str
    features: dict[str, Any]
    start: str = (
        ""  # the initial state's FEN where the position does not come from the game's start (a puzzle)
    )
    # what the suite's kind adds to the line, checked by that kind (`kinds.SuiteKind.check`): a Clue
    # deduction snapshot's `entailed` facts (suites.deduction), its `moves` then empty
    more: dict[str, Any] = field(default_factory=dict)

    def state(self, game: GameDef) -> pyspiel.State:
        """The position rebuilt: from the game's initial state (or `start`), every action replayed."""
        state = game.engine.new_initial_state(self.start) if self.start else game.new_state()
        for action in self.history:
            if action not in state.legal_actions():
                raise UserError(
                    f"suite position {self.index}: move {action} is not legal after {list(state.history())}"
                )
            state.apply_action(action)
        return state

    def grade(self) -> Grade:
        """The position's truth as a `Grade`, the one scale a played move is scored on."""
        return Grade(
            {m.action: m.value for m in self.moves},
            unit="payoff" if self.unit == "payoff" else "score",
            span=self.span,
            source=self.source,
            exact=self.exact,
            tolerance=self.tolerance,
        )

    def content(self) -> dict[str, Any]:
        return (
            {
                "index": self.index,
                "history": list(self.history),
                "mover": self.mover,
                "ply": self.ply,
                "moves": [{"action": m.action, "label": m.label, "value": m.value} for m in self.moves],
                "unit": self.unit,
                "span": self.span,
                "exact": self.exact,
                "tolerance": self.tolerance,
                "source": self.source,
                "features": self.features,
            }
            | ({"start": self.start} if self.start else {})
            | self.more
        )

    @cached_property
    def id(self) -> str:
        """The hash of the position's content: what a hand edit changes (computed once)."""
        return digest(canonical_json(self.content()))[:16]

    def line(self) -> str:
        return canonical_json({**self.content(), "id": self.id})

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Position:
        """A position from its JSON object, every field checked for type and range (ValueError or
        KeyError naming the field and what it accepts); what needs the game is `check`'s."""
        moves = field_list(d, "moves")
        return cls(
            index=field_whole(d, "index"),
            history=_actions(field_list(d, "history")),
            mover=field_whole(d, "mover"),
            ply=field_whole(d, "ply"),
            moves=tuple(_move(m) for m in moves),
            unit=field_text(d, "unit"),
            span=field_number(d, "span", least=0.0),
            exact=field_flag(d, "exact"),
            tolerance=field_number(d, "tolerance", least=0.0),
            source=field_text(d, "source"),
            features=field_object(d, "features"),
            start=field_text(d, "start") if "start" in d else "",
            more={k: v for k, v in d.items() if k not in OWN_KEYS},
        )

    def check(self, game: GameDef) -> pyspiel.State:
        """What the file's types cannot say, for every kind: the position is the game's, its mover
        the rebuilt state's player to move (ValueError otherwise). Returns that state, for the
        suite kind's own check (`kinds.SuiteKind.check`)."""
        state = self.state(game)
        if state.is_terminal() or state.current_player() != self.mover:
            to_move = (
                "nobody (the game is over)" if state.is_terminal() else f"player {state.current_player()}"
            )
            raise ValueError(f"its mover is player {self.mover}, but {to_move} is to move after its history")
        return state


# A position line's own members; any other is what the suite's kind adds (`Position.more`).
OWN_KEYS = frozenset(
    ("index", "history", "mover", "ply", "moves", "unit", "span", "exact", "tolerance", "source", "features")
    + ("start", "id")
)


def field_object(d: dict[str, Any], key: str) -> dict[str, Any]:
    value = d[key]
    if not isinstance(value, dict):
        raise ValueError(f"'{key}' must be a JSON object (got {value!r})")
    return value


def field_list(d: dict[str, Any], key: str) -> list[Any]:
    value = d[key]
    if not isinstance(value, list):
        raise ValueError(f"'{key}' must be a list (got {value!r})")
    return value


def field_whole(d: dict[str, Any], key: str) -> int:
    """A whole number from 0 to INT64, as the store and the seeds take it (never a float's 3.0)."""
    value = d[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= INT64:
        raise ValueError(f"'{key}' must be a whole number from 0 to {INT64} (got {value!r})")
    return value


def _move(m: object) -> MoveTruth:
    if not isinstance(m, dict):
        raise ValueError(f"'moves' holds objects with action, label and value (got {m!r})")
    return MoveTruth(field_whole(m, "action"), field_text(m, "label"), field_number(m, "value"))


def _actions(values: list[Any]) -> tuple[int, ...]:
    """A history: whole numbers from 0 (OpenSpiel's actions), checked in one pass."""
    if not all(type(a) is int and 0 <= a <= INT64 for a in values):
        bad = next(a for a in values if type(a) is not int or not 0 <= a <= INT64)
        raise ValueError(f"'history' holds actions, whole numbers from 0 to {INT64} (got {bad!r})")
    return tuple(values)


def field_number(d: dict[str, Any], key: str, least: float = -math.inf) -> float:
    value = d[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not least <= value < math.inf:
        floor = "" if least == -math.inf else f" of at least {least:g}"
        raise ValueError(f"'{key}' must be a finite number{floor} (got {value!r})")
    return float(value)


def field_text(d: dict[str, Any], key: str) -> str:
    value = d[key]
    if not isinstance(value, str):
        raise ValueError(f"'{key}' must be a string (got {value!r})")
    return value


def field_flag(d: dict[str, Any], key: str) -> bool:
    value = d[key]
    if not isinstance(value, bool):
        raise ValueError(f"'{key}' must be true or false (got {value!r})")
    return value


def header_truth(truth: dict[str, Any]) -> dict[str, Any]:
    """The header's truth as `suite show` prints it: its kind and name, the sources that graded it."""
    field_text(truth, "kind")
    field_text(truth, "name")
    sources = truth.get("sources") or []
    if not isinstance(sources, list) or not all(isinstance(x, str) for x in sources):
        raise ValueError(f"'truth.sources' must be a list of strings (got {sources!r})")
    if "margin" in truth:
        field_number(truth, "margin", least=0.0)
    return truth


@dataclass(frozen=True)
class Suite:
    """A suite as built or read: its header fields and its positions, in the suite's fixed order."""

    name: str
    game: str
    parameters: dict[str, Any]
    formulation: str
    sampler: str
    seed: int
    truth: dict[str, Any]  # kind, name, limit and the sources that graded its positions
    positions: tuple[Position, ...]
    notes: dict[str, str] = field(default_factory=dict)  # what each feature means, stated in the file
    # `suite calibrate`'s ladder and 2PL fit (suites.calibration); absent from an uncalibrated header
    calibration: dict[str, Any] | None = None

    def header(self) -> dict[str, Any]:
        return {
            "plylab_suite": VERSION,
            "name": self.name,
            "game": self.game,
            "parameters": self.parameters,
            "formulation": self.formulation,
            "sampler": self.sampler,
            "seed": self.seed,
            "positions": len(self.positions),
            "truth": self.truth,
            "notes": self.notes,
        } | ({} if self.calibration is None else {"calibration": self.calibration})

    @cached_property
    def hash(self) -> str:
        """sha256 of the header (without the hash) and every position line, in order: computed once
        per suite (every job's key and seed name it; recomputing it per job made a run quadratic)."""
        lines = [canonical_json(self.header()), *(p.line() for p in self.positions)]
        return "sha256:" + digest("\n".join(lines))

    def text(self) -> str:
        head = canonical_json({**self.header(), "hash": self.hash})
        return "\n".join([head, *(p.line() for p in self.positions)]) + "\n"

    def write(self, path: Path) -> None:
        """Written whole under a temporary name, then renamed (never half a suite under the name);
        a path that cannot take it is one line."""
        tmp = path.with_name(path.name + ".tmp")
        try:
            if path.is_dir():
                raise UserError(f"cannot write suite file {path}: a directory is in its place")
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(self.text(), encoding="utf-8")
            tmp.replace(path)
        except OSError as exc:
            with suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise UserError(f"cannot write suite file {path}: {exc.strerror or exc}") from None


def header_calibration(head: dict[str, Any], positions: int) -> dict[str, Any]:
    """The header's calibration (`suite calibrate`) as `suite show` and an adaptive run read it: its
    ladder, a fitted player per ladder spec, and one item per position with finite numbers."""
    cal = field_object(head, "calibration")
    ladder = field_list(cal, "ladder")
    if not ladder or not all(isinstance(s, str) for s in ladder):
        raise ValueError(f"'calibration.ladder' must be a list of player specs (got {ladder!r})")
    for key in ("answers", "seed"):
        field_whole(cal, key)
    field_text(cal, "fit")
    players = field_object(cal, "players")
    if sorted(players) != sorted(ladder):
        raise ValueError("'calibration.players' must hold exactly the ladder's players")
    for p in players.values():
        field_number(p, "ability")
        field_number(p, "se", least=0.0)
    items = field_list(cal, "items")
    if len(items) != positions:
        raise ValueError(f"'calibration.items' holds {len(items)} items for {positions} positions")
    for item in items:
        if not isinstance(item, dict):
            raise ValueError(f"'calibration.items' holds objects (got {item!r})")
        field_number(item, "discrimination")
        field_number(item, "rate", least=0.0)
        for key in ("difficulty", "correlation"):
            if item.get(key) is not None:
                field_number(item, key)
    return cal
