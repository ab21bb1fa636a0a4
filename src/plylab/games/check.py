"""A parametrised game is loaded and played in a child process before plylab loads it itself.

OpenSpiel's C++ checks of a game's parameters are not a boundary plylab can trust: some bad values
crash the process (`leduc_poker:starting_player=1000000`, `universal_poker:numSuits=0`: SIGSEGV), some
read memory out of bounds and carry on (`leduc_poker:starting_player=2`), some print a complaint and
then hang or crash at random (`dark_chess:fen=garbage` prints "Invalid FEN"). So a game whose spec sets
parameters is first loaded and played a little in a child (`check_child.py`: the first-moves line and a
few seeded random games), and refused in one line where that child dies by a signal, runs past its
deadline, raises, or has OpenSpiel say something is invalid. A game at its defaults is never checked:
an ordinary run costs nothing more.

A game that passed is remembered in this process and on disk (the cache folder, one small file per
game keyed by its canonical spec and the open_spiel version), so each parametrised game is checked
once per machine, not once per run or per worker process.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Mapping
from functools import cache
from importlib import metadata
from pathlib import Path

import pyspiel

from ..errors import UserError
from ..oracles.cachefile import read_cache
from ..oracles.minimax import cache_dir
from . import check_child
from .params import canonical, engine_message

DEFAULT_SECONDS = 30.0  # the child's deadline: loading and a few hundred moves take well under a second
FORMAT = 1  # bumped when the child plays more (a game that passed the old check is checked again)
# OpenSpiel reports some bad parameters on stderr and carries on with a broken game ("Invalid FEN").
COMPLAINT = re.compile(r"\binvalid\b", re.IGNORECASE)

_passed: set[str] = set()  # canonical specs checked in this process


def deadline() -> float:
    """Seconds the child may take (PLYLAB_GAME_CHECK_SECONDS overrides DEFAULT_SECONDS)."""
    try:
        value = float(os.environ.get("PLYLAB_GAME_CHECK_SECONDS", ""))
    except ValueError:
        return DEFAULT_SECONDS
    return value if value > 0 else DEFAULT_SECONDS


@cache
def engine_version() -> str:
    """The installed open_spiel's version (a new engine may crash where the old one did not)."""
    try:
        return metadata.version("open_spiel")
    except metadata.PackageNotFoundError:
        import pyspiel

        found = os.stat(str(pyspiel.__file__))
        return f"unpackaged-{found.st_size}-{int(found.st_mtime)}"


def record_path(key: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9_.=-]+", "_", key)[:80]
    digest = hashlib.sha256(f"{key}|{engine_version()}|{FORMAT}".encode()).hexdigest()[:10]
    return cache_dir() / f"gamecheck-{slug}-{digest}.json"


def _record(key: str) -> dict[str, object]:
    return {"game": key, "open_spiel": engine_version(), "format": FORMAT, "passed": True}


def passed_before(key: str) -> bool:
    """Whether the game passed the check on this machine under this open_spiel (a damaged record: no)."""
    try:
        text = read_cache(record_path(key))
    except OSError:  # no cache folder can be made: check again
        return False
    if text is None:
        return False
    try:
        return bool(json.loads(text) == _record(key))
    except ValueError:
        return False


def remember(key: str) -> None:
    """Write the record of a passed check; a cache folder that cannot be written only costs a check."""
    try:
        path = record_path(key)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(_record(key)))
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    except OSError:
        pass


def verdict(openspiel_name: str, params: Mapping[str, object]) -> str | None:
    """What went wrong when a child loaded and played the game, in words; None where nothing did.

    OpenSpiel's own complaint comes first wherever it ends (a bad FEN is said, then crashes or hangs
    at random); then its exception, the deadline, a signal, any other exit."""
    seconds = deadline()
    code: int | None
    try:
        done = subprocess.run(  # -I: the child's path holds neither the script's folder (games/, whose
            # module names may shadow the standard library's) nor PYTHONPATH; it needs pyspiel alone
            [sys.executable, "-I", check_child.__file__, openspiel_name, json.dumps(dict(params))],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=seconds,
            start_new_session=True,  # a Ctrl-C at the terminal stops plylab, not the child's verdict
            check=False,
        )
        raw_out, raw_err, code = done.stdout, done.stderr, done.returncode
    except subprocess.TimeoutExpired as late:  # killed; what it wrote so far is kept
        raw_out, raw_err, code = late.stdout or b"", late.stderr or b"", None
    out = raw_out.decode("utf-8", "replace").splitlines()
    err = raw_err.decode("utf-8", "replace").splitlines()
    result: dict[str, object] = {}
    for line in out:
        if line.startswith(check_child.MARK):
            try:
                result = json.loads(line[len(check_child.MARK) :])
            except ValueError:
                result = {}
    said = [x.strip() for x in err + out if COMPLAINT.search(x) and not x.startswith(check_child.MARK)]
    if said:  # what happened next is chance (a broken game): say what OpenSpiel said, then that
        then = " and then crashed" if code is not None and code < 0 else ""
        then = " and then hung" if code is None else then
        return f"OpenSpiel said '{said[0]}' when a separate process loaded it{then}"
    if "error" in result:
        return engine_message(str(result["error"]))
    if code is None:
        return (
            f"OpenSpiel did not load it and play a few moves within {seconds:g} s (it may never finish; "
            "PLYLAB_GAME_CHECK_SECONDS sets the limit)"
        )
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"OpenSpiel crashed on it ({name}) when a separate process loaded and played it"
    if code != 0 or result.get("ok") is not True:
        return f"OpenSpiel failed to load and play it (the check exited with status {code})"
    return None


@cache
def native(openspiel_name: str) -> bool:
    """Whether the game's engine is OpenSpiel's C++ (what can crash the process), not a game written in
    Python and registered with pyspiel in this process (Clue's `python_clue`), which a pyspiel-only
    child does not know and whose bad parameters raise as Python does."""
    return type(pyspiel.load_game(openspiel_name)).__module__.startswith("pyspiel")


def check_game(spec: str, openspiel_name: str, params: Mapping[str, object], accepted: str) -> None:
    """UserError naming `spec` and what happened unless a child loads and plays the game cleanly.

    `params` are every OpenSpiel parameter plylab passes (its fixed ones included); `accepted` the
    parameters the game takes, for the error line. Checked once per canonical spec and open_spiel."""
    key = canonical(openspiel_name, params)
    if key in _passed or not native(openspiel_name):
        return
    if not passed_before(key):
        why = verdict(openspiel_name, params)
        if why is not None:
            raise UserError(f"game '{spec}' is not valid: {why}; parameters: {accepted}")
        remember(key)
    _passed.add(key)
