"""An oracle's table on disk (minimax, generic, equilibrium): written whole, or not at all.

A table is written to a temporary file beside its cache file and renamed over it, so a reader never
sees half a table and two builders racing each leave a whole one. A cache file that cannot be
written (a directory in its place, no permission, a full disk) is one line naming the cache file,
not its temporary file, and the temporary file is removed.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..errors import UserError


def write_whole(path: Path, text: str) -> None:
    """Write `text` to `path` atomically; UserError naming `path` where it cannot be written."""
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        why = "a directory is in its place; remove it" if path.is_dir() else (exc.strerror or str(exc))
        raise UserError(
            f"cannot write the oracle cache file '{path}': {why} (PLYLAB_CACHE sets the cache directory)"
        ) from None
