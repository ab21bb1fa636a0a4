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
