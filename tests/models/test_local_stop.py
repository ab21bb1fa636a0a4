"""Stopping while the local model generates is one line and exit 130, whatever the command.

llama.cpp calls a logits processor through a ctypes callback: an exception raised there (the old
way to cancel a reply) is swallowed and printed as "Exception ignored on calling ctypes callback"
once per token, after the summary line. A stopping criterion ends the abandoned reply quietly."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

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
