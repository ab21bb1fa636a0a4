"""A GTP engine that dies on purpose, for the GNU Go failure tests (`install` writes it as `gnugo`
and returns the environment that makes plylab use it: PLYLAB_GNUGO).

It answers every command with an empty success, `genmove` with a pass, until genmove number
FAKE_GTP_AFTER (counted over every process in FAKE_GTP_COUNTER, so a restarted engine goes on
failing); from then on it exits (code 3) when asked for a move: a GNU Go that dies mid-game.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path


def install(folder: Path, *, after: int) -> dict[str, str]:
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "gnugo"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).resolve()}" "$@"\n')
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return {"PLYLAB_GNUGO": str(exe), "FAKE_GTP_AFTER": str(after), "FAKE_GTP_COUNTER": str(folder / "moves")}


def _next_move() -> int:
    """This genmove's number over every process (0 first)."""
    counter = Path(os.environ["FAKE_GTP_COUNTER"])
    n = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(n + 1))
    return n


def main() -> None:
    after = int(os.environ.get("FAKE_GTP_AFTER", "0"))
    for line in sys.stdin:
        command = line.split()
        if not command:
            continue
        if command[0] == "quit":
            sys.stdout.write("= \n\n")
            return
        if command[0] == "genmove":
            if _next_move() >= after:
                sys.exit(3)
            sys.stdout.write("= pass\n\n")
        else:
            sys.stdout.write("= \n\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
