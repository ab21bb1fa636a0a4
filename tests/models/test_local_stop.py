"""Stopping while the local model generates is one line and exit 130, whatever the command.

llama.cpp calls a logits processor through a ctypes callback: an exception raised there (the old
way to cancel a reply) is swallowed and printed as "Exception ignored on calling ctypes callback"
once per token, after the summary line. A stopping criterion ends the abandoned reply quietly.

Stopping while the model loads is the same: the load runs in a worker thread, and llama-cpp-python
used to point the process's stdout and stderr at /dev/null for its length, the summary line with them."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from plylab.models.weights import gguf_path
from tests.support.runs import no_run_outlives_its_test, plylab, stop, wait_for_games  # noqa: F401

COMMANDS = {
    "run": [
        "run",
        "--game",
        "tic_tac_toe",
        "--player",
        "llm:model=local,max_tokens=512,temperature=0.7",
        "--opponent",
        "random",
        "--games",
        "50",
        "--concurrency",
        "2",
    ],
    "clue study": ["clue", "study", "--condition", "baseline", "--model", "local", "--games", "2"],
}


@pytest.mark.model
@pytest.mark.parametrize(
    "command, sig",
    [("run", signal.SIGINT), ("run", signal.SIGTERM), ("clue study", signal.SIGINT)],
)
def test_a_signal_while_the_local_model_generates_is_one_line_and_exit_130(
    tmp_path: Path, command: str, sig: int
) -> None:
    store = tmp_path / "s.sqlite"
    proc = plylab(*COMMANDS[command], "--store", str(store), "-q")
    wait_for_games(proc, store, 1, table="responses", timeout=300)  # loaded, and asked again
    time.sleep(1.5)  # well inside the next reply (hundreds of tokens at a few dozen a second)
    out, err = stop(proc, sig)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    lines = out.strip().splitlines()
    assert len(lines) == 1 and "interrupted" in lines[0], out


def _loading(pid: int, weights: str) -> bool:
    """Whether process `pid` has the weights' file open: llama.cpp reads it while it loads, and
    closes it once the model is in memory (mapped, not open)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except FileNotFoundError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == weights:
                return True
        except OSError:  # closed as we looked
            continue
    return False


@pytest.mark.model
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_local_model_loads_is_one_line_and_exit_130(tmp_path: Path, sig: int) -> None:
    """Signalled while the model loads (its file open, not a fixed sleep): the summary line is printed
    (it went to /dev/null with llama-cpp-python's silencing: exit 130 and nothing said)."""
    weights = str(gguf_path())
    proc = plylab(*COMMANDS["run"], "--store", str(tmp_path / "s.sqlite"), "-q")
    deadline = time.monotonic() + 300
    while not _loading(proc.pid, weights):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the model did not start loading within 300 s"
        time.sleep(0.002)
    out, err = stop(proc, sig)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    lines = out.strip().splitlines()
    assert len(lines) == 1 and "interrupted" in lines[0], (out, err)
