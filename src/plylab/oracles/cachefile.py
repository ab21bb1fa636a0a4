"""The on-disk cache (oracle tables, equilibria, checked games): read without trusting it, written whole.

A cache file is plylab's own, yet anything may stand at its path: a FIFO (opening it for reading waits
for a writer for ever), a device, a directory, a torn or hand-edited file. Only a regular file is read:
it is opened without blocking and checked before a byte is read, and anything else is refused in one
line naming the path. What a regular file holds is for its reader to validate; a reader that finds it
damaged says so in one line on stderr (`rebuilding`) and builds it again.

A table is written to a temporary file beside its cache file and renamed over it, so a reader never
sees half a table and two builders racing each leave a whole one. A cache file that cannot be
written (a directory in its place, no permission, a full disk) is one line naming the cache file,
not its temporary file, and the temporary file is removed.

A table is looked up and built under a lock beside its cache file (`building`): a second process
that needs the same table (a test worker beside another, two runs started together) waits for the
first one's build and reads its file instead of building it again.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

from ..errors import UserError


def read_cache(path: Path) -> str | None:
    """The text of the cache file at `path`; None where there is none (or it cannot be read or decoded,
    which its reader treats as damaged). UserError where something other than a regular file is there."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise not_regular(path, "a directory") from None
    except OSError:
        return None
    mode = os.fstat(fd).st_mode  # before fdopen, which refuses a directory's descriptor itself
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise not_regular(path, kind_of(mode))
    with os.fdopen(fd, "rb") as handle:
        try:
            return handle.read().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def not_regular(path: Path, kind: str) -> UserError:
    return UserError(
        f"cache file '{path}' is {kind}, not a regular file: remove it (or set PLYLAB_CACHE to another folder)"
    )


def rebuilding(path: Path, why: str) -> None:
    """One line on stderr: the cache file at `path` was damaged (`why`) and is built again."""
    print(f"plylab: cache file '{path}' is damaged ({why}); rebuilding it", file=sys.stderr, flush=True)


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


@contextlib.contextmanager
def building(path: Path) -> Iterator[None]:
    """Held while the table cached at `path` is looked up and, where missing, built: one builder at a
    time per table, so a process that waited finds the file the first one wrote. A lock that cannot be
    taken (a read-only cache folder) guards nothing: the table is built as it would be without it."""
    try:
        fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
