"""Silencing OpenSpiel's C++ on stderr while plylab asks it something it may refuse.

OpenSpiel's C++ prints "OpenSpiel exception: ..." (or a warning) on file descriptor 2 before it raises,
and plylab's own one line already says what was wrong. On the ground floor: games, oracles, players and
the harness all load games."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def engine_quiet() -> Iterator[None]:
    """Silence file descriptor 2 while OpenSpiel checks a game: its C++ prints "OpenSpiel exception:
    ..." there before raising, and plylab's own one line already says what was wrong."""
    if sys.stderr is not None:
        sys.stderr.flush()
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)
