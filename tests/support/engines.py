"""Debian's Stockfish and Fairy-Stockfish for the engine tests (`make setup` installs them)."""

from __future__ import annotations

import pytest

from plylab.oracles.engine import engine_path

needs_stockfish = pytest.mark.skipif(
    engine_path("stockfish") is None, reason="no stockfish (make engines installs it)"
)
needs_fairy = pytest.mark.skipif(
    engine_path("fairy-stockfish") is None, reason="no fairy-stockfish (make engines installs it)"
)


def live(pid: int) -> bool:
    """Running: not a zombie, not gone (read from /proc, so a test sees what the kernel sees)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
