"""Ctrl-C at the two ends of the command's life, where no run holds it: while `plylab` still imports
its commands, and while the interpreter shuts down after the last line. One line (or nothing more)
and exit 130, never a traceback.

A sleep cannot land a signal inside a few milliseconds of imports, so the child signals itself at the
exact moment: a `sitecustomize` (Python imports it at start-up) sends SIGINT as `plylab.cli` starts
to import, or from an exit handler, which runs in the interpreter's clean-up after `main` returned."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.runs import ROOT, foreground

AT_IMPORT = """
import os, signal, sys

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "plylab.cli":  # what the command imports first, and longest
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
"""

AT_FIRST_IMPORT_OF = """
import os, sys
import _signal  # not `signal`: it imports enum, one of the moments this hook is to find

WHEN = os.environ["PLYLAB_TEST_AT"]


class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == WHEN:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), _signal.SIGINT)
        return None


sys.meta_path.insert(0, Interrupt())
"""

AT_EXIT = """
import atexit, os, signal

atexit.register(lambda: os.kill(os.getpid(), signal.SIGINT))  # registered first: runs last
"""


def _plylab_with(hook: str, tmp_path: Path, *args: str, at: str = "") -> subprocess.CompletedProcess[str]:
    (tmp_path / "sitecustomize.py").write_text(hook)
    path = os.pathsep.join([str(tmp_path), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "plylab", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path, "PLYLAB_TEST_AT": at},
        preexec_fn=foreground,
    )


def test_ctrl_c_while_the_command_imports_is_one_line_and_130(tmp_path: Path) -> None:
    """It was Python's KeyboardInterrupt traceback from inside an import (typer, enum, ...)."""
    done = _plylab_with(AT_IMPORT, tmp_path, "games")
    assert done.returncode == 130, done.stderr
    assert done.stderr == "plylab: interrupted\n" and done.stdout == ""


RUN = ("run", "--game", "nim", "--player", "random", "--opponent", "random", "--games", "2", "-q")


@pytest.mark.parametrize(
    "at, why",
    [
        ("enum", "the first import of all: `signal` loading enum before the handler was in place"),
        ("typer._adapters", "typer parsing the arguments (typer returned 130, nothing said)"),
        ("plylab.harness.driver", "the command importing what it runs (typer returned 130, nothing said)"),
    ],
)
def test_ctrl_c_at_every_moment_of_the_first_second_is_one_line_and_130(
    tmp_path: Path, at: str, why: str
) -> None:
    """The first second of `plylab run`, probed: a traceback from the import of `signal`, then exit
    130 with nothing printed while typer parsed the arguments and the command imported its
    modules (issue 47 point 11). Each moment is hit exactly: SIGINT as that module is first looked for."""
    done = _plylab_with(AT_FIRST_IMPORT_OF, tmp_path, *RUN, "--store", str(tmp_path / "s.sqlite"), at=at)
    assert done.returncode == 130, (why, done.stderr)
    assert done.stderr == "plylab: interrupted\n" and done.stdout == "", (why, done.stderr)


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ("games",),
        ("run", "--game", "nim", "--player", "random", "--opponent", "random", "--games", "2", "-q"),
    ],
)
def test_ctrl_c_while_the_interpreter_shuts_down_adds_nothing_and_is_130(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """The command's output is whole (flushed) and nothing follows it: it was "Error in
    atexit._run_exitfuncs" and a traceback, the clean-up cut short by KeyboardInterrupt."""
    extra = ("--store", str(tmp_path / "s.sqlite")) if args[0] == "run" else ()
    done = _plylab_with(AT_EXIT, tmp_path, *args, *extra)
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
    if args[0] == "run":
        assert done.stdout.count("\n") == 1 and "2/2 games saved" in done.stdout, done.stdout
        assert "games to play" in done.stderr and done.stderr.count("\n") == 1, done.stderr
    else:
        assert "tic_tac_toe" in done.stdout and done.stderr == ""


@pytest.mark.slow
def test_a_run_signalled_before_it_starts_keeps_sigint_ignored_when_started_ignoring_it(
    tmp_path: Path,
) -> None:
    """A background job of a shell without job control starts with SIGINT ignored; the command
    keeps it so (the import-time hook's SIGINT is then nothing) and does its work."""
    (tmp_path / "sitecustomize.py").write_text(AT_IMPORT)
    path = os.pathsep.join([str(tmp_path), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "plylab", "games"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    assert done.returncode == 0, done.stderr
    assert "tic_tac_toe" in done.stdout
