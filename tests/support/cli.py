"""Run the real `plylab` console entry in a child process (for stdin, signals and exit codes)."""

from __future__ import annotations

import os
import subprocess
import sys


def plylab_subprocess(
    *args: str, input: str | None = None, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plylab", *args],
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )
