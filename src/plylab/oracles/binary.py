"""Where an engine's program is (Stockfish, Fairy-Stockfish, GNU Go, GNU Backgammon): one rule for all."""

from __future__ import annotations

import os
import shutil


def find_binary(name: str, override: str | None = None) -> str | None:
    """The program `name`: the path in the environment variable `override` when one is set (None if it
    is not executable there), else on PATH, else where Debian puts games (/usr/games); None if absent."""
    own = os.environ.get(override) if override else None
    if own:
        return own if os.access(own, os.X_OK) else None
    return shutil.which(name) or shutil.which(name, path="/usr/games")
