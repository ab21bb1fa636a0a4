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
naming the line of the file and what is accepted. What a position's truth must hold is its suite
kind's (`kinds.SuiteKind.check`: a move position's every legal move, a Clue snapshot's facts),
the kind chosen once from the header's game; what every suite holds is `content`'s.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..oracles.cachefile import kind_of
from .content import (
    INT64,
    VERSION,
    MoveTruth,
    Position,
    Suite,
    canonical_json,
    digest,
    field_object,
    field_text,
    field_whole,
    header_calibration,
    header_truth,
)
from .kinds import kind_of as suite_kind

__all__ = [
    "INT64",
    "SUITES_DIR",
    "VERSION",
    "MoveTruth",
    "Position",
    "Suite",
    "canonical_json",
    "check_name",
    "digest",
    "read_suite",
    "read_text_file",
    "suite_path",
]

SUITES_DIR = Path("suites")  # where `suite build NAME` writes and `suite run NAME` reads
NAME_CHARS = 100  # a suite's name is a file name: short, one printable line


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
            name=check_name(field_text(head, "name")),
            game=field_text(head, "game"),
            parameters=field_object(head, "parameters"),
            formulation=field_text(head, "formulation"),
            sampler=field_text(head, "sampler"),
            seed=field_whole(head, "seed"),
            truth=header_truth(field_object(head, "truth")),
            positions=tuple(positions),
            notes=field_object(head, "notes") if head.get("notes") is not None else {},
            calibration=None if head.get("calibration") is None else header_calibration(head, len(positions)),
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
    """Every position valid for the suite's game and kind (`Position.check`, then the kind's own
    `check`), numbered by its place, and none twice: a forged file with correct hashes is refused as
    a changed one is. The kind is chosen once, from the header's game."""
    kind = suite_kind(suite.game)
    game = kind.game(suite.game)
    seen: dict[tuple[str, tuple[int, ...]], int] = {}
    for number, pos in enumerate(suite.positions, start=2):
        where = f"suite file {path} is not a valid suite: position {pos.index} (line {number})"
        if pos.index != number - 2:
            raise UserError(f"{where} is numbered {pos.index}; positions are numbered 0, 1, 2... in order")
        again = seen.setdefault((pos.start, pos.history), pos.index)
        if again != pos.index:
            raise UserError(f"{where} is position {again} again (the same history); a suite asks each once")
        try:
            kind.check(pos, pos.check(game))
        except (KeyError, ValueError) as exc:
            raise UserError(f"{where}: {_field_error(exc)}") from None
