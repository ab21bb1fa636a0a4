"""A run killed (SIGKILL) right after its first saved game, at that exact moment whatever the
machine's load: a `sitecustomize` in the child kills it as the commit that saved its first game
returns. A parent polling the store every few milliseconds let a loaded machine save every game
before the kill landed, and the tests that needed a run killed mid-way failed (issue 47 point 12)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

KILL_AFTER_THE_FIRST_GAME = """
import os, re, signal, sqlite3

GAME = re.compile(r"INSERT (OR IGNORE )?INTO games\\b")
real = sqlite3.connect


def connect(*args, **kwargs):
    base = kwargs.pop("factory", sqlite3.Connection)

    class Killed(base):
        saving = False  # this connection's transaction holds a game

        def execute(self, sql, *rest):
            done = super().execute(sql, *rest)
            if isinstance(sql, str) and GAME.match(sql):
                self.saving = True
            elif sql == "COMMIT" and self.saving:  # the first game is saved: killed at once
                os.kill(os.getpid(), signal.SIGKILL)
            return done

    return real(*args, factory=Killed, **kwargs)


sqlite3.connect = connect
"""


def killed_after_first_save(cmd: list[str], store: Path, timeout: float = 120.0) -> bool:
    """Run the command until its first game is saved, where it is killed (SIGKILL) right after that
    commit, by a `sitecustomize` in the child: the moment is exact whatever the machine's load (a
    parent polling the store let a loaded machine save every game first). False if it finished."""
    hook = store.parent / "kill-after-the-first-game"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(KILL_AFTER_THE_FIRST_GAME)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True
    )
    try:
        proc.wait(timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # a worker the run had started goes too
        proc.wait()
    return proc.returncode == -signal.SIGKILL
