"""SQLite helpers every store file shares (the run store, the response cache, REAPER's memory):
opening a file for writing (WAL, busy timeout, refusing what a writer must not touch), opening it
read-only without ever changing it, and one write transaction.

Here, on the ground floor below `harness/` and `models/`, so each of them opens a file and writes a
transaction the same way without importing the other.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sqlite3
import tempfile
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from .errors import UserError


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE..COMMIT on an autocommit connection (ROLLBACK on any exception).

    Inside a caller's transaction it is that one: the writes commit or roll back with it. IMMEDIATE
    takes the write lock at BEGIN, so two writers wait on the busy timeout instead of failing later.
    """
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def read_only_folder(path: Path) -> bool:
    """Whether the store's folder (or file) cannot be written: a read-only mount, or permissions."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return True
    except OSError:
        return False
    return not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK))


def open_failure(path: Path, exc: sqlite3.DatabaseError) -> UserError:
    """What went wrong opening a store for writing, said as what it is: a full disk and a read-only
    folder are not a store that cannot be read."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_FULL:
        return UserError(
            f"store '{path}': the disk is full ({exc}); every saved game is intact, so free space and "
            "run the same command again"
        )
    if code == sqlite3.SQLITE_READONLY or (code == sqlite3.SQLITE_CANTOPEN and read_only_folder(path)):
        return UserError(
            f"store '{path}' cannot be written: it or its folder is read-only ({exc}); give a --store "
            "in a folder you can write to (reading commands such as `report` can still read it)"
        )
    return UserError(f"store '{path}' is not a readable plylab store ({exc})")


def connect(
    path: str | Path, *, create: bool = True, setup: Callable[[sqlite3.Connection], None] | None = None
) -> sqlite3.Connection:
    """Open (and create) a store file with WAL, foreign keys and a busy timeout; `setup` makes the
    caller's tables (an error in it is the file's: one line).

    `create=False` is for reading commands: the file is opened read-only (see `open_read_only`).
    """
    path = Path(path)
    if not create:
        return open_read_only(path)
    if path.exists() and path.is_dir():
        raise UserError(f"store '{path}' is a directory; expected an SQLite file path")
    check_before_writing(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            path, timeout=30.0, isolation_level=None, check_same_thread=False, factory=_Writer
        )
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA busy_timeout=30000")
        if setup is not None:
            setup(conn)
    except sqlite3.DatabaseError as exc:
        raise open_failure(path, exc) from None
    except OSError as exc:
        raise UserError(f"cannot open store '{path}': {exc.strerror or exc}") from None
    conn.identity = _identity(path)
    _writers.add(conn)
    return conn


DEFAULT_STORE = Path("results/plylab.sqlite")  # where a command reads and writes without --store
SQLITE_MAGIC = b"SQLite format 3\x00"
REQUIRED = {
    "runs": {"id", "name", "kind", "seed", "plan", "status"},
    "games": {"id", "run_id", "job_key", "game", "player", "opponent", "outcome"},
    "moves": {"game_id", "ply", "seat", "action"},
}


_checked: set[tuple[int, int]] = set()  # (device, inode) of files this process found sound


class _Writer(sqlite3.Connection):
    """A store connection opened for writing. While one is open, its file is never opened with a
    plain file descriptor: closing that descriptor would drop every POSIX lock the process holds on
    the file, SQLite's among them, and the next reader in another process, taking itself for the
    last connection, would remove the -wal this process is still appending to (its games unseen
    outside, and lost if it is killed)."""

    identity: tuple[int, int] | None = None  # the file's (device, inode)

    def close(self) -> None:
        _writers.discard(self)
        super().close()


_writers: weakref.WeakSet[_Writer] = weakref.WeakSet()  # open ones (a dropped one goes by itself)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _writing(path: Path) -> bool:
    """Whether this process holds a store connection for writing to the file at `path`."""
    identity = _identity(path)
    return identity is not None and any(c.identity == identity for c in list(_writers))


def check_before_writing(path: Path) -> None:
    """Refuse, before anything is written, a file a writer must not touch: not a regular file,
    another program's database, or a damaged store (with the line the reading commands give).

    A missing or empty file becomes a new store. The check reads the whole file once (SQLite's
    quick_check) and is made once per file and process: the run's other connections skip it.
    """
    try:
        if not path.exists():
            return
        st = path.stat()
    except OSError as exc:
        raise UserError(f"cannot open store '{path}': {exc.strerror or exc}") from None
    if not path.is_file():
        raise UserError(
            f"store '{path}' is not a regular file (a FIFO, a device?); expected an SQLite file path"
        )
    if st.st_size == 0 or (st.st_dev, st.st_ino) in _checked or _writing(path):
        return
    conn = open_read_only(path)  # one line for a non-SQLite file or another program's database
    try:
        with reading(path):
            if [r[0] for r in conn.execute("PRAGMA quick_check(1)")] != ["ok"]:
                raise sqlite3.DatabaseError("database disk image is malformed")  # SQLite's own words
    finally:
        conn.close()
    _checked.add((st.st_dev, st.st_ino))


def damaged(path: str | Path, exc: BaseException) -> UserError:
    """The one line for a store whose pages SQLite cannot read, for reading and writing commands alike."""
    return UserError(
        f"store '{path}' is damaged ({exc}); nothing was written to it. "
        "Restore it from a copy, or salvage what is left with `sqlite3 STORE .recover`"
    )


def _uri(path: Path, **params: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"file:{quote(str(path.resolve()))}?{query}"


def _ro(path: Path, **params: str) -> sqlite3.Connection:
    conn = sqlite3.connect(
        _uri(path, **params), uri=True, timeout=30.0, isolation_level=None, check_same_thread=False
    )
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA query_only=ON")
    return conn


def _missing(conn: sqlite3.Connection) -> list[str]:
    """What a plylab store must have and this file lacks (tables or columns); empty when it is one."""
    missing = []
    for table, columns in REQUIRED.items():
        have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
        if not have:
            missing.append(f"no '{table}' table")
        elif columns - have:
            missing.append(f"'{table}' lacks {', '.join(sorted(columns - have))}")
    return missing


def _snapshot(path: Path) -> Path:
    """A private copy of a store and its -wal, for read-only media where SQLite cannot share the WAL.

    `immutable=1` would ignore the WAL, and so the games committed since the last checkpoint; the
    copy keeps them and leaves the original untouched. It is removed when the process exits.
    """
    tmp = Path(tempfile.mkdtemp(prefix="plylab-read-"))
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    for suffix in ("", "-wal"):
        shutil.copyfile(f"{path}{suffix}", tmp / f"store.sqlite{suffix}")
    return tmp / "store.sqlite"


def stores_beside(path: str | Path, make: str = "plylab run ...", most: int = 8) -> str:
    """What a missing store's message offers instead: the stores in its folder, or how to make one."""
    path = Path(path)
    try:
        found = sorted(p.name for p in path.parent.glob("*.sqlite") if p.is_file())
    except OSError:
        found = []
    if not found:
        return f"run `{make} --store {path}` first"
    shown = ", ".join(found[:most]) + (f" and {len(found) - most} more" if len(found) > most else "")
    return f"stores in '{path.parent}': {shown} (choose one with --store)"


def open_read_only(path: str | Path) -> sqlite3.Connection:
    """Open a store for reading without ever changing it, or refuse with one line.

    Never creates tables, switches journal modes or creates sidecar files next to a file that is not
    a plylab store: the file is first inspected with `immutable=1` (no locks, no -wal/-shm). A WAL
    store is then read with `mode=ro`, which sees a live writer's latest commits; on read-only
    media (directory not writable, no -shm to share) it stays `immutable=1`.
    """
    path = Path(path)
    try:
        if path.is_dir():
            raise UserError(f"store '{path}' is a directory; expected an SQLite file path")
        if not path.exists():
            raise UserError(f"store '{path}' does not exist; {stores_beside(path)}")
        if not path.is_file():  # opening a FIFO would wait for a writer for ever
            raise UserError(
                f"store '{path}' is not a regular file (a FIFO, a device?); expected an SQLite file"
            )
        if _writing(path):  # SQLite alone may touch the file (see _Writer)
            return _ro(path, mode="ro")
        with path.open("rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        raise UserError(f"cannot read store '{path}': {exc.strerror or exc}") from None
    if not header:
        raise UserError(f"'{path}' is an empty file, not a plylab store; it was left unchanged")
    if not header.startswith(SQLITE_MAGIC) or len(header) < 100:
        raise UserError(f"'{path}' is not an SQLite file, so not a plylab store; it was left unchanged")
    wal = header[18] == 2
    sidecar = Path(f"{path}-wal").exists()
    writable_dir = os.access(path.parent, os.W_OK)
    conn = None
    try:
        conn = _ro(path, mode="ro", immutable="1")
        try:
            missing = _missing(conn)
        except sqlite3.DatabaseError:
            if not (wal and sidecar):
                raise
            # A checkpoint cut short (a full disk) leaves the main file half-updated: only with its
            # -wal is it the store. Judge it as SQLite will read it, below.
            missing = ["unreadable without its -wal"]
        if missing and not sidecar:
            raise UserError(f"'{path}' is not a plylab store ({'; '.join(missing)}); it was left unchanged")
        if wal and (sidecar or writable_dir or Path(f"{path}-shm").exists()):
            conn.close()
            conn = None
            try:
                conn = _ro(path, mode="ro")
                missing = _missing(conn)
            except sqlite3.OperationalError:  # read-only media without a -shm
                conn = _ro(_snapshot(path), mode="ro") if sidecar else _ro(path, mode="ro", immutable="1")
                missing = _missing(conn)
        if missing:
            raise UserError(f"'{path}' is not a plylab store ({'; '.join(missing)}); it was left unchanged")
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        raise UserError(
            f"store '{path}' is damaged or not a plylab store ({exc}); it was left unchanged"
        ) from None
    except BaseException:
        if conn is not None:
            conn.close()
        raise
    return conn


@contextmanager
def reading(path: str | Path) -> Iterator[None]:
    """Turn SQLite errors met while reading a store (corrupted pages) into one line."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise damaged(path, exc) from None
