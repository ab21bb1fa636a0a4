"""Bad `-T` values to `inspect eval plylab/game`, `plylab/suite` and `plylab/clue`: the real `inspect`
command refuses each before anything runs, in one line saying what was wrong and what is accepted,
with a non-zero exit and no traceback (inspect prints a `PrerequisiteError` as its message alone)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tasks.test_inspect_game import ROOT

CASES = [
    ("plylab/game", "game=nope", "plylab/game: unknown game 'nope'"),
    ("plylab/game", "game=/etc/passwd", "plylab/game: unknown game '/etc/passwd'"),
    ("plylab/game", "games=-1", "plylab/game: -T games must be at least 1 (got -1)"),
    ("plylab/game", "games=abc", "plylab/game: -T games must be a whole number from 1 to"),
    ("plylab/game", "games=2.5", "plylab/game: -T games must be a whole number from 1 to"),
    ("plylab/game", "seed=abc", "plylab/game: -T seed must be a whole number from"),
    ("plylab/game", "opponent=nope", "plylab/game: unknown player 'nope'"),
    ("plylab/game", "formulation=bogus", "plylab/game: unknown formulation 'bogus'"),
    ("plylab/game", "output=enums", "plylab/game: unknown output 'enums'"),
    ("plylab/suite", "suite=nope", "plylab/suite: unknown suite 'nope'"),
    ("plylab/suite", "suite=/etc/passwd", "plylab/suite: suite file /etc/passwd is malformed"),
    ("plylab/suite", "suite=", "plylab/suite: -T suite must be a name or spec (got nothing)"),
    (
        "plylab/clue",
        "condition=bogus",
        "plylab/clue: unknown condition 'bogus'; accepted: baseline, matrix, mixed",
    ),
    ("plylab/clue", "games=-1", "plylab/clue: -T games must be at least 1 (got -1)"),
    ("plylab/clue", "seed=abc", "plylab/clue: -T seed must be a whole number from"),
    (
        "plylab/clue",
        "turn_limit=1000000000",
        "plylab/clue: game 'clue:players=3,turn_limit=1000000000' is too large",
    ),
]


def refused(task: str, argument: str, display: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    inspect = shutil.which("inspect", path=str(Path(sys.executable).parent))
    assert inspect
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "400"}
    args = [inspect, "eval", task, "-T", argument, "--model", "plylab/local", "--display", display]
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=300, cwd=cwd)


@pytest.mark.slow
@pytest.mark.parametrize(("task", "argument", "said"), CASES, ids=[f"{t}-{a}" for t, a, _ in CASES])
def test_a_bad_task_argument_is_one_line_and_a_non_zero_exit(
    task: str, argument: str, said: str, tmp_path: Path
) -> None:
    done = refused(task, argument, "none", tmp_path)
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(said), out
    assert "Traceback" not in out


@pytest.mark.slow
def test_the_refusal_is_said_once_under_inspects_own_display(tmp_path: Path) -> None:
    """inspect's default display prints the PrerequisiteError itself (plylab adds nothing)."""
    done = refused("plylab/game", "games=abc", "plain", tmp_path)
    out = done.stdout + done.stderr
    assert done.returncode != 0
    assert " ".join(out.split()).count("-T games must be a whole number") == 1, out
    assert "Traceback" not in out
