"""A suite file: positions with their truth, self-contained, versioned and content-hashed.

JSON Lines: the first line is the header (the game and its parameters, the formulation, how the
positions were drawn, the ground truth that graded them, and the hash of everything), then one line
per position (the history that reaches it, so a seat's view with its hidden information is rebuilt
exactly; the mover; every legal move's value on the one graded scale; its difficulty features).
Each position carries `id`, the hash of its own content, so a file changed by hand is refused with
one line naming the position that changed, never read as if it were the suite that was built.
Every line is canonical JSON (sorted keys, no spaces), so a suite built twice from one seed is the
same bytes and the same hash.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from ..oracles.graded import Grade

if TYPE_CHECKING:
    import pyspiel

    from ..games import GameDef

VERSION = 1  # the file format; a reader refuses a version it does not know
SUITES_DIR = Path("suites")  # where `suite build NAME` writes and `suite run NAME` reads


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

    @property
    def id(self) -> str:
        """The hash of the position's content: what a hand edit changes."""
        return digest(canonical_json(self.content()))[:16]

    def line(self) -> str:
        return canonical_json({**self.content(), "id": self.id})

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Position:
        return cls(
            index=int(d["index"]),
            history=tuple(int(a) for a in d["history"]),
            mover=int(d["mover"]),
            ply=int(d["ply"]),
            moves=tuple(MoveTruth(int(m["action"]), str(m["label"]), float(m["value"])) for m in d["moves"]),
            unit=str(d["unit"]),
            span=float(d["span"]),
            exact=bool(d["exact"]),
            tolerance=float(d["tolerance"]),
            source=str(d["source"]),
            features=dict(d["features"]),
            start=str(d.get("start", "")),
            entailed=None if d.get("entailed") is None else tuple((int(c), int(h)) for c, h in d["entailed"]),
        )


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
        }

    @property
    def hash(self) -> str:
        """sha256 of the header (without the hash) and every position line, in order."""
        lines = [canonical_json(self.header()), *(p.line() for p in self.positions)]
        return "sha256:" + digest("\n".join(lines))

    def text(self) -> str:
        head = canonical_json({**self.header(), "hash": self.hash})
        return "\n".join([head, *(p.line() for p in self.positions)]) + "\n"

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(self.text(), encoding="utf-8")
        tmp.replace(path)  # never a half-written suite under the name


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


def _json_line(path: Path, number: int, text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"suite file {path} is malformed: line {number} is not JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise UserError(f"suite file {path} is malformed: line {number} is not a JSON object")
    return value


def read_suite(name_or_path: str) -> tuple[Suite, Path]:
    """The suite and its file, checked: a malformed file, an unknown version or any change since it
    was built (a position's content, the header, the order or the count) is refused in one line."""
    path = suite_path(name_or_path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read suite file {path}: {exc}") from None
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
        except (KeyError, TypeError, ValueError) as exc:
            raise UserError(
                f"suite file {path} is malformed: line {number} lacks or mistypes {exc}"
            ) from None
        if d.get("id") != pos.id:
            raise UserError(
                f"suite file {path} was changed after it was built: position {pos.index} (line {number}) "
                f"no longer matches its id {d.get('id')!r}; rebuild it with plylab suite build"
            )
        positions.append(pos)
    try:
        suite = Suite(
            name=str(head["name"]),
            game=str(head["game"]),
            parameters=dict(head["parameters"]),
            formulation=str(head["formulation"]),
            sampler=str(head["sampler"]),
            seed=int(head["seed"]),
            truth=dict(head["truth"]),
            positions=tuple(positions),
            notes=dict(head.get("notes") or {}),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"suite file {path} is malformed: its header lacks or mistypes {exc}") from None
    if head.get("positions") != len(positions):
        raise UserError(
            f"suite file {path} was changed after it was built: it holds {len(positions)} positions, "
            f"its header says {head.get('positions')}"
        )
    if head.get("hash") != suite.hash:
        raise UserError(
            f"suite file {path} was changed after it was built: its header or the order of its positions "
            f"no longer matches its hash {head.get('hash')!r}; rebuild it with plylab suite build"
        )
    return suite, path
