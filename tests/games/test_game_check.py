"""A game parameter OpenSpiel's C++ cannot take is one line and exit 2, never a dead process (issue 37, 2).

Each case goes through the real `plylab` entry in a child process with core dumps allowed (as far as
the hard limit lets), in a folder of its own: a crash of plylab would be exit 139 and a `core` file
there, a hang the subprocess' time-out.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

import plylab.games
from plylab.errors import UserError
from plylab.games import GAMES
from tests.support.cli import run_args

# (spec, what the one line must say): a crash (SIGSEGV), OpenSpiel's own complaint, or the seat
# to move out of range (which OpenSpiel reads out of bounds before any of its checks).
CRASHING = [
    ("leduc_poker:starting_player=1000000", "seat 1000000 is to move in a game of 2 players"),
    ("leduc_poker:starting_player=2", "seat 2 is to move in a game of 2 players"),
    ("leduc_poker:starting_player=5", "seat 5 is to move in a game of 2 players"),
    ("universal_poker:firstPlayer=9 9", "OpenSpiel said 'invalid first player 9 on round 1'"),
    (
        "universal_poker:numSuits=0",
        "OpenSpiel said 'invalid number of suits: 0' when a separate process loaded it and then crashed",
    ),
    ("universal_poker:stack=0 0", "OpenSpiel crashed on it (SIGSEGV)"),
    ("dark_chess:fen=garbage", "OpenSpiel said 'Invalid FEN: garbage'"),  # then hangs or crashes or not
]


def _allow_core_dumps() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))


def _plylab(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plylab", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PLYLAB_CACHE": str(tmp_path / "cache"), **(env or {})},
        preexec_fn=_allow_core_dumps,
    )


def _refused_in_one_line(done: subprocess.CompletedProcess[str], spec: str, says: str, folder: Path) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"plylab: error: game '{spec}' is not valid: "), lines[0]
    assert says in lines[0], lines[0]
    assert not [p.name for p in folder.iterdir() if p.name.startswith("core")]


# One crash (SIGSEGV) in the fast lane; the others in `make test`.
FAST_CRASHING = {"leduc_poker:starting_player=1000000"}


@pytest.mark.parametrize(
    ("spec", "says"),
    [pytest.param(s, w, marks=() if s in FAST_CRASHING else pytest.mark.slow) for s, w in CRASHING],
    ids=[s for s, _ in CRASHING],
)
def test_a_crashing_parameter_is_refused_by_run_in_one_line(tmp_path: Path, spec: str, says: str) -> None:
    done = _plylab(tmp_path, *run_args(spec, games=1, store=tmp_path / "s.db"), "--score", "off")
    _refused_in_one_line(done, spec, says, tmp_path)


@pytest.mark.parametrize(
    "spec",
    [
        "leduc_poker:starting_player=1000000",
        pytest.param("leduc_poker:starting_player=2", marks=pytest.mark.slow),
    ],
)
def test_a_crashing_parameter_is_refused_by_solve_in_one_line(tmp_path: Path, spec: str) -> None:
    done = _plylab(tmp_path, "solve", "--game", spec)
    _refused_in_one_line(done, spec, f"seat {spec.rpartition('=')[2]} is to move", tmp_path)
    assert "game value" not in done.stdout


@pytest.mark.slow
def test_a_valid_parametrised_game_plays_and_its_check_is_remembered_on_disk(tmp_path: Path) -> None:
    spec = "leduc_poker:starting_player=1"
    done = _plylab(tmp_path, *run_args(spec, games=1, store=tmp_path / "s.db"), "--score", "off")
    assert done.returncode == 0, done.stderr
    records = list((tmp_path / "cache").glob("gamecheck-leduc_poker*.json"))
    assert len(records) == 1
    assert json.loads(records[0].read_text())["game"] == "leduc_poker:players=2,starting_player=1"
    # the record stands for the check: with a deadline no check can meet, the game still plays
    again = _plylab(
        tmp_path,
        *run_args(spec, games=2, store=tmp_path / "s.db"),
        "--score",
        "off",
        env={"PLYLAB_GAME_CHECK_SECONDS": "0.001"},
    )
    assert again.returncode == 0, again.stderr


@pytest.mark.slow
def test_a_check_past_its_deadline_refuses_and_a_game_at_its_defaults_is_never_checked(
    tmp_path: Path,
) -> None:
    """A hang is the deadline's (a limit no child can meet stands for one); the defaults skip it all."""
    tight = {"PLYLAB_GAME_CHECK_SECONDS": "0.001"}
    spec = "leduc_poker:starting_player=1"
    done = _plylab(tmp_path, *run_args(spec, games=1, store=tmp_path / "s.db"), "--score", "off", env=tight)
    _refused_in_one_line(done, spec, "did not load it and play a few moves within 0.001 s", tmp_path)
    plain = _plylab(
        tmp_path, *run_args("leduc_poker", games=1, store=tmp_path / "s.db"), "--score", "off", env=tight
    )
    assert plain.returncode == 0, plain.stderr
    assert not list((tmp_path / "cache").glob("gamecheck-*"))


def test_a_damaged_or_foreign_check_record_is_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from plylab.games import check as game_check

    monkeypatch.setenv("PLYLAB_CACHE", str(tmp_path))
    key = "leduc_poker:players=2,starting_player=1000000"
    path = game_check.record_path(key)
    path.write_text(json.dumps({"game": key, "open_spiel": "0.0.1", "format": 1, "passed": True}))
    assert not game_check.passed_before(key)
    path.write_text("{not json")
    assert not game_check.passed_before(key)
    with pytest.raises(UserError, match="is not valid: seat 1000000 is to move"):
        GAMES.get("leduc_poker:starting_player=1000000")


@pytest.mark.slow
def test_every_game_at_its_defaults_passes_the_check() -> None:
    """No false refusal: the child loads and plays each registered game as plylab sets it up."""
    from plylab.games import check as game_check

    refused = {}
    for name in GAMES.names():
        game = GAMES.get(name)
        why = game_check.verdict(game.openspiel_name, game.openspiel_params)
        if why is not None:
            refused[name] = why
    assert refused == {}


def test_no_module_beside_the_child_script_shadows_the_standard_library() -> None:
    """The child runs `games/check_child.py` by path; a module beside it named like one of the standard
    library's (a `struct.py` once was) would be imported in its place by anything the child imports,
    were the script's folder on its path. The child runs isolated (-I), and the folder keeps no such name."""
    folder = Path(plylab.games.__file__).parent
    clashes = sorted(p.stem for p in folder.glob("*.py") if p.stem in sys.stdlib_module_names)
    assert clashes == []
