"""A UCI engine that fails on purpose, for the engine-failure tests (`install` puts it on PATH as
`stockfish`, the name plylab looks for).

It answers like Stockfish 15.1 (its name, its Skill Level range 0 to 20) and plays the first legal
move, until search number FAKE_ENGINE_AFTER (counted over every process in FAKE_ENGINE_COUNTER, so a
restarted engine goes on failing); from then on (only then, with FAKE_ENGINE_ONCE=1) it does what
FAKE_ENGINE_MODE says:

- hang: stops answering mid-search (one info line, then nothing);
- die: exits mid-search;
- lie: answers `bestmove zz99` (with that pv);
- stall: never finishes the handshake (no `uciok`), whatever FAKE_ENGINE_AFTER says.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path


def install(folder: Path, mode: str, *, after: int = 0, once: bool = False) -> dict[str, str]:
    """Write `folder/stockfish` (this script) and return the environment that puts it first on PATH."""
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "stockfish"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).resolve()}" "$@"\n')
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return {
        "PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}",
        "FAKE_ENGINE_MODE": mode,
        "FAKE_ENGINE_AFTER": str(after),
        "FAKE_ENGINE_ONCE": "1" if once else "",
        "FAKE_ENGINE_COUNTER": str(folder / "searches"),
    }


def _searches() -> int:
    """This search's number over every process (0 first)."""
    counter = Path(os.environ["FAKE_ENGINE_COUNTER"])
    n = int(counter.read_text() or 0) if counter.exists() else 0
    counter.write_text(str(n + 1))
    return n


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> None:
    # python-chess is imported after the handshake: a restarted engine must answer `uci` well within
    # the tests' two-second deadline on a loaded machine, and the interpreter alone starts in tens of ms.
    mode = os.environ.get("FAKE_ENGINE_MODE", "")
    after = int(os.environ.get("FAKE_ENGINE_AFTER", "0") or 0)
    once = bool(os.environ.get("FAKE_ENGINE_ONCE"))
    board = None
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            if mode == "stall":
                time.sleep(3600)
            _say("id name Stockfish 15.1")
            _say("option name Threads type spin default 1 min 1 max 1024")
            _say("option name Hash type spin default 16 min 1 max 33554432")
            _say("option name Skill Level type spin default 20 min 0 max 20")
            _say("uciok")
        elif words[0] == "isready":
            _say("readyok")
        elif words[0] == "position":
            import chess

            fen = " ".join(words[2:8]) if words[1] == "fen" else chess.STARTING_FEN
            board = chess.Board(fen)
            if "moves" in words:
                for uci in words[words.index("moves") + 1 :]:
                    board.push_uci(uci)
        elif words[0] == "go":
            n = _searches()
            failing = n == after if once else n >= after
            move = min((m.uci() for m in board.legal_moves), default="0000") if board else "0000"
            if failing and mode == "hang":
                _say(f"info depth 1 score cp 0 nodes 1 pv {move}")
                time.sleep(3600)
            elif failing and mode == "die":
                sys.exit(3)
            elif failing and mode == "lie":
                _say("info depth 1 score cp 0 nodes 1 pv zz99")
                _say("bestmove zz99")
            else:
                _say(f"info depth 1 score cp 0 nodes 1 pv {move}")
                _say(f"bestmove {move}")
        elif words[0] == "quit":
            return


if __name__ == "__main__":
    main()
