"""A suite file: positions with their truth, self-contained, versioned and content-hashed.

JSON Lines: the first line is the header (the game and its parameters, the formulation, how the
positions were drawn, the ground truth that graded them, and the hash of everything), then one line
per position (the history that reaches it, so a seat's view with its hidden information is rebuilt
exactly; the mover; every legal move's value on the one graded scale; its difficulty features).
Each position carries `id`, the hash of its own content, so a file changed by hand is refused with
one line naming the position that changed, never read as if it were the suite that was built.
Every line is canonical JSON (sorted keys, no spaces), so a suite built twice from one seed is the
same bytes and the same hash.

A hash proves a file unchanged since it was written, not that what was written makes sense: a file
forged with correct hashes is as welcome as a built one. So a file is validated whole on load, every
value against what the run, the report and `suite show` will do with it: numbers finite, counts
and ids whole numbers in range, every position's moves non-empty and exactly the legal moves of its
rebuilt state, its mover that state's player to move, no position twice. Anything else is one line
naming the line of the file and what is accepted.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from ..oracles.cachefile import kind_of
from ..oracles.graded import Grade

if TYPE_CHECKING:
    import pyspiel

    from ..games import GameDef

VERSION = 1  # the file format; a reader refuses a version it does not know
SUITES_DIR = Path("suites")  # where `suite build NAME` writes and `suite run NAME` reads
INT64 = 2**63 - 1  # the largest whole number the store (SQLite) and the seeds take
NAME_CHARS = 100  # a suite's name is a file name: short, one printable line


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
    # a Clue deduction snapshot's truth (suites.deduction): every (card, holder) the mover's
    # observations entail outside its own hand; its `moves` are then empty
    entailed: tuple[tuple[int, int], ...] | None = None

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
            | ({} if self.entailed is None else {"entailed": [list(f) for f in self.entailed]})
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
        moves = _items(d, "moves")
        return cls(
            index=_whole(d, "index"),
            history=_actions(_items(d, "history")),
            mover=_whole(d, "mover"),
            ply=_whole(d, "ply"),
            moves=tuple(_move(m) for m in moves),
            unit=_text(d, "unit"),
            span=_number(d, "span", least=0.0),
            exact=_flag(d, "exact"),
            tolerance=_number(d, "tolerance", least=0.0),
            source=_text(d, "source"),
            features=_object(d, "features"),
            start=_text(d, "start") if "start" in d else "",
            entailed=None if d.get("entailed") is None else tuple(_fact(f) for f in _items(d, "entailed")),
        )

    def check(self, game: GameDef, *, deduction: bool) -> None:
        """What the file's types cannot say: the position is the game's and its truth is whole.
        A move position has moves, each a different legal move, every legal move valued, and its
        `chance` a share; a Clue snapshot (`deduction`) has its entailed facts; either way the mover
        is the rebuilt state's player to move. ValueError naming what is wrong."""
        state = self.state(game)
        if state.is_terminal() or state.current_player() != self.mover:
            to_move = (
                "nobody (the game is over)" if state.is_terminal() else f"player {state.current_player()}"
            )
            raise ValueError(f"its mover is player {self.mover}, but {to_move} is to move after its history")
        if deduction:
            if self.entailed is None:
                raise ValueError("a Clue suite's position needs its 'entailed' facts")
            for key in ("entailed", "beyond_matrix"):
                _whole(self.features, key)
            return
        if not self.moves:
            raise ValueError("'moves' is empty; a position values every legal move")
        actions = [m.action for m in self.moves]
        if len(set(actions)) != len(actions):
            raise ValueError(f"'moves' values a move twice (actions {sorted(actions)})")
        legal = sorted(state.legal_actions())
        if sorted(actions) != legal:
            raise ValueError(f"'moves' values actions {sorted(actions)}; the legal moves are {legal}")
        _whole(self.features, "legal")
        chance = self.features.get("chance")
        if isinstance(chance, bool) or not isinstance(chance, int | float) or not 0 <= chance <= 1:
            raise ValueError(f"'features.chance' must be a share between 0 and 1 (got {chance!r})")


def _object(d: dict[str, Any], key: str) -> dict[str, Any]:
    value = d[key]
    if not isinstance(value, dict):
        raise ValueError(f"'{key}' must be a JSON object (got {value!r})")
    return value


def _items(d: dict[str, Any], key: str) -> list[Any]:
    value = d[key]
    if not isinstance(value, list):
        raise ValueError(f"'{key}' must be a list (got {value!r})")
    return value


def _whole(d: dict[str, Any], key: str) -> int:
    """A whole number from 0 to INT64, as the store and the seeds take it (never a float's 3.0)."""
    value = d[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= INT64:
        raise ValueError(f"'{key}' must be a whole number from 0 to {INT64} (got {value!r})")
    return value


def _move(m: object) -> MoveTruth:
    if not isinstance(m, dict):
        raise ValueError(f"'moves' holds objects with action, label and value (got {m!r})")
    return MoveTruth(_whole(m, "action"), _text(m, "label"), _number(m, "value"))


def _actions(values: list[Any]) -> tuple[int, ...]:
    """A history: whole numbers from 0 (OpenSpiel's actions), checked in one pass."""
    if not all(type(a) is int and 0 <= a <= INT64 for a in values):
        bad = next(a for a in values if type(a) is not int or not 0 <= a <= INT64)
        raise ValueError(f"'history' holds actions, whole numbers from 0 to {INT64} (got {bad!r})")
    return tuple(values)


def _number(d: dict[str, Any], key: str, least: float = -math.inf) -> float:
    value = d[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not least <= value < math.inf:
        floor = "" if least == -math.inf else f" of at least {least:g}"
        raise ValueError(f"'{key}' must be a finite number{floor} (got {value!r})")
    return float(value)


def _text(d: dict[str, Any], key: str) -> str:
    value = d[key]
    if not isinstance(value, str):
        raise ValueError(f"'{key}' must be a string (got {value!r})")
    return value


def _flag(d: dict[str, Any], key: str) -> bool:
    value = d[key]
    if not isinstance(value, bool):
        raise ValueError(f"'{key}' must be true or false (got {value!r})")
    return value


def _truth(truth: dict[str, Any]) -> dict[str, Any]:
    """The header's truth as `suite show` prints it: its kind and name, the sources that graded it."""
    _text(truth, "kind")
    _text(truth, "name")
    sources = truth.get("sources") or []
    if not isinstance(sources, list) or not all(isinstance(x, str) for x in sources):
        raise ValueError(f"'truth.sources' must be a list of strings (got {sources!r})")
    if "margin" in truth:
        _number(truth, "margin", least=0.0)
    return truth


def _calibration(head: dict[str, Any], positions: int) -> dict[str, Any]:
    """The header's calibration (`suite calibrate`) as `suite show` and an adaptive run read it: its
    ladder, a fitted player per ladder spec, and one item per position with finite numbers."""
    cal = _object(head, "calibration")
    ladder = _items(cal, "ladder")
    if not ladder or not all(isinstance(s, str) for s in ladder):
        raise ValueError(f"'calibration.ladder' must be a list of player specs (got {ladder!r})")
    for key in ("answers", "seed"):
        _whole(cal, key)
    _text(cal, "fit")
    players = _object(cal, "players")
    if sorted(players) != sorted(ladder):
        raise ValueError("'calibration.players' must hold exactly the ladder's players")
    for p in players.values():
        _number(p, "ability")
        _number(p, "se", least=0.0)
    items = _items(cal, "items")
    if len(items) != positions:
        raise ValueError(f"'calibration.items' holds {len(items)} items for {positions} positions")
    for item in items:
        if not isinstance(item, dict):
            raise ValueError(f"'calibration.items' holds objects (got {item!r})")
        _number(item, "discrimination")
        _number(item, "rate", least=0.0)
        for key in ("difficulty", "correlation"):
            if item.get(key) is not None:
                _number(item, key)
    return cal


def _fact(value: object) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError(f"'entailed' holds [card, holder] pairs (got {value!r})")
    return _whole({"card": value[0]}, "card"), _whole({"holder": value[1]}, "holder")


def check_name(name: str) -> str:
    """A suite's name as a file name and one printable line: what `suite build` writes, `suite show`
    reads back (a line separator such as U+2028 or U+0085 would split the header line in two)."""
    if (
        not name
        or name != name.strip()
        or not name.isprintable()
        or "/" in name
        or name in (".", "..")
        or len(name) > NAME_CHARS
    ):
        raise UserError(
            f"a suite name is one printable word of at most {NAME_CHARS} characters, without '/', "
            f"control or line-separator characters, or leading or trailing spaces (got {name!r}); "
            "give a path with --out"
        )
    return name


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


def suite_path(name_or_path: str) -> Path:
    """A suite named (`suites/NAME.jsonl`) or given by its path; UserError naming what is here."""
    given = Path(name_or_path)
    if name_or_path.endswith(".jsonl") or given.is_file():
        if not given.is_file():
            raise UserError(f"no suite file '{name_or_path}'")
        return given
    if "/" in name_or_path or not name_or_path.strip():
        raise UserError(f"no suite file '{name_or_path}'")
    path = SUITES_DIR / f"{name_or_path}.jsonl"
    if path.is_file():
        return path
    known = sorted(p.stem for p in SUITES_DIR.glob("*.jsonl")) if SUITES_DIR.is_dir() else []
    here = f"suites in {SUITES_DIR}/: {', '.join(known)}" if known else f"no suites in {SUITES_DIR}/ yet"
    raise UserError(f"unknown suite '{name_or_path}' (no {path}); {here}; build one with plylab suite build")


def read_text_file(path: Path, what: str) -> str:
    """The UTF-8 text of the regular file at `path`, or one line: anything else (a FIFO, whose
    opening waits for a writer for ever; a directory; a device) is refused before a byte is read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except IsADirectoryError:
        raise UserError(f"{what} {path} is a directory, not a regular file") from None
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UserError(f"{what} {path} is {kind_of(mode)}, not a regular file")
    with os.fdopen(fd, "rb") as handle:
        try:
            return handle.read().decode("utf-8")
        except OSError as exc:
            raise UserError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise UserError(f"{what} {path} is not UTF-8 text") from None


class _NotJSONNumber(ValueError):
    """NaN, Infinity, or a number beyond a double (1e999): Python's json reads them, JSON has none."""


def _refuse_constant(text: str) -> float:
    raise _NotJSONNumber(text)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotJSONNumber(text)
    return value


def _json_line(path: Path, number: int, text: str) -> dict[str, Any]:
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except _NotJSONNumber as exc:
        raise UserError(
            f"suite file {path} is malformed: line {number} holds {exc}, which is not a finite JSON number"
        ) from None
    except json.JSONDecodeError as exc:
        raise UserError(f"suite file {path} is malformed: line {number} is not JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise UserError(f"suite file {path} is malformed: line {number} is not a JSON object")
    return value


def _hashes_to(text: str, pid: object, pos: Position) -> bool:
    """Whether the line as written, less its own `"id"` member, hashes to its id; if so the id is
    taken as `pos.id` (its cache) without serialising the position again.

    A built file's lines are canonical JSON, so reading one never needs to re-serialise it: its own
    bytes are what the id and the suite's hash were taken over (keys sorted, and no string holds an
    unescaped quote, so the last `"id":"…",` of the line is its own member). A line that is not
    canonical (reformatted by a tool) is checked the slow way, re-serialised from its values."""
    if not isinstance(pid, str):
        return False
    member = f'"id":{canonical_json(pid)},'
    at = text.rfind(member)
    if at < 0 or digest(text[:at] + text[at + len(member) :])[:16] != pid:
        return False
    pos.__dict__["id"] = pid  # the cached_property's slot: a frozen dataclass keeps it in __dict__
    return True


def _field_error(exc: Exception) -> str:
    """What a missing or mistyped field says: the field (KeyError) or the check's own words."""
    return f"lacks {exc}" if isinstance(exc, KeyError) else str(exc)


def read_suite(name_or_path: str) -> tuple[Suite, Path]:
    """The suite and its file, checked whole: a malformed file, an unknown version, any change since
    it was built (a position's content, the header, the order or the count), or content that is not
    a valid suite however its hashes read (`Position.check`) is refused in one line."""
    path = suite_path(name_or_path)
    # split on newlines only: str.splitlines also splits inside a line at U+2028, U+0085 and the like
    lines = read_text_file(path, "suite file").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise UserError(f"suite file {path} is empty")
    head = _json_line(path, 1, lines[0])
    if "plylab_suite" not in head:
        raise UserError(f"{path} is not a plylab suite file: its first line has no 'plylab_suite' version")
    if head["plylab_suite"] != VERSION:
        raise UserError(
            f"suite file {path} has format version {head['plylab_suite']!r}; this plylab reads {VERSION}"
        )
    positions: list[Position] = []
    for number, text in enumerate(lines[1:], start=2):
        d = _json_line(path, number, text)
        try:
            pos = Position.from_json(d)
        except (KeyError, ValueError) as exc:
            raise UserError(f"suite file {path} is malformed: line {number} {_field_error(exc)}") from None
        if not _hashes_to(text, d.get("id"), pos) and d.get("id") != pos.id:
            raise UserError(
                f"suite file {path} was changed after it was built: position {pos.index} (line {number}) "
                f"no longer matches its id {d.get('id')!r}; rebuild it with plylab suite build"
            )
        positions.append(pos)
    try:
        suite = Suite(
            name=check_name(_text(head, "name")),
            game=_text(head, "game"),
            parameters=_object(head, "parameters"),
            formulation=_text(head, "formulation"),
            sampler=_text(head, "sampler"),
            seed=_whole(head, "seed"),
            truth=_truth(_object(head, "truth")),
            positions=tuple(positions),
            notes=_object(head, "notes") if head.get("notes") is not None else {},
            calibration=None if head.get("calibration") is None else _calibration(head, len(positions)),
        )
    except (KeyError, ValueError) as exc:
        raise UserError(f"suite file {path} is malformed: its header {_field_error(exc)}") from None
    if head.get("positions") != len(positions):
        raise UserError(
            f"suite file {path} was changed after it was built: it holds {len(positions)} positions, "
            f"its header says {head.get('positions')}"
        )
    as_read = "sha256:" + digest("\n".join([canonical_json(suite.header()), *lines[1:]]))
    if as_read == head.get("hash"):
        suite.__dict__["hash"] = as_read  # the cached `hash`, taken from the lines as they are
    elif head.get("hash") != suite.hash:
        raise UserError(
            f"suite file {path} was changed after it was built: its header or the order of its positions "
            f"no longer matches its hash {head.get('hash')!r}; rebuild it with plylab suite build"
        )
    _check_positions(suite, path)
    return suite, path


def _check_positions(suite: Suite, path: Path) -> None:
    """Every position valid for the suite's game (`Position.check`), numbered by its place, and
    none twice: a forged file with correct hashes is refused as a changed one is."""
    from ..games import get_game
    from .kinds import clue_game, is_clue

    deduction = is_clue(suite.game)
    game = clue_game(suite.game) if deduction else get_game(suite.game)
    seen: dict[tuple[str, tuple[int, ...]], int] = {}
    for number, pos in enumerate(suite.positions, start=2):
        where = f"suite file {path} is not a valid suite: position {pos.index} (line {number})"
        if pos.index != number - 2:
            raise UserError(f"{where} is numbered {pos.index}; positions are numbered 0, 1, 2... in order")
        again = seen.setdefault((pos.start, pos.history), pos.index)
        if again != pos.index:
            raise UserError(f"{where} is position {again} again (the same history); a suite asks each once")
        try:
            pos.check(game, deduction=deduction)
        except (KeyError, ValueError) as exc:
            raise UserError(f"{where}: {_field_error(exc)}") from None
