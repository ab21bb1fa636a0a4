"""Run the real `plylab` console entry in a child process (for stdin, signals and exit codes)."""

from __future__ import annotations

import os
import subprocess
import sys


def plylab_subprocess(
    *args: str,
    input: str | None = None,
    timeout: float = 120,
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plylab", *args],
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


def run_args(
    game: str,
    player: str = "random",
    opponent: str = "random",
    *,
    games: int | str | None = None,
    store: str | os.PathLike[str],
    formulation: str | None = None,
    quiet: bool = True,
) -> list[str]:
    """`plylab run` arguments for one matchup into `store` (quiet unless asked; `games=None` leaves
    the count to its default): the block most CLI tests start from; a test appends its own flags."""
    args = ["run", "--game", game]
    if formulation is not None:
        args += ["--formulation", formulation]
    args += ["--player", player, "--opponent", opponent]
    args += [] if games is None else ["--games", str(games)]
    args += ["--store", str(store)]
    return args + (["--quiet"] if quiet else [])
