"""SQLite helpers every store file shares (the run store, the response cache, REAPER's memory):
opening a file for writing (WAL, busy timeout, refusing what a writer must not touch), opening it
read-only without ever changing it, and one write transaction.

A new store file appears whole or not at all: it is made under a temporary name in its folder and
linked into place once its tables exist, so a Ctrl-C or `kill -9` at the moment of creation leaves
either no store (the same command makes it) or a complete one, never the 4,096-byte header SQLite
writes first. A file an older interruption left blank (empty, or an SQLite header and no table) is
made into a store the same way.

Here, on the ground floor below `harness/` and `models/`, so each of them opens a file and writes a
transaction the same way without importing the other.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import secrets
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
        if not path.exists() or (not _writing(path) and blank(path)):
            _create(path, setup)
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
# The store's shape, in the file's `PRAGMA user_version`: a writer that finds an older one upgrades the
# file once (`harness.store`), and every plylab refuses a file from a newer one. Raise it with every
# change to the store's tables.
SCHEMA_VERSION = 1
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

    A missing or blank file (see `blank`) becomes a new store. The check reads the whole file once
    (SQLite's quick_check) and is made once per file and process: the run's other connections skip it.
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
    if (st.st_dev, st.st_ino) in _checked or _writing(path) or blank(path):
        return
    conn = open_read_only(path)  # one line for a non-SQLite file or another program's database
    try:
        with reading(path):
            if [r[0] for r in conn.execute("PRAGMA quick_check(1)")] != ["ok"]:
                raise sqlite3.DatabaseError("database disk image is malformed")  # SQLite's own words
    finally:
        conn.close()
    _checked.add((st.st_dev, st.st_ino))


def blank(path: Path) -> bool:
    """Whether `path` is a file that holds nothing: empty, or an SQLite header with no table and no
    -wal to add one (what SQLite writes first when it makes a file, and an interruption may leave).
    A writer makes such a file into a new store; a missing file is not blank."""
    try:
        if not path.is_file():
            return False
        if path.stat().st_size == 0:
            return True
        with path.open("rb") as fh:
            if fh.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
                return False
        wal = Path(f"{path}-wal")
        if wal.exists() and wal.stat().st_size > 0:
            return False
        conn = _ro(path, mode="ro", immutable="1")
    except (OSError, sqlite3.Error):
        return False
    try:
        return bool(conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0)
    except sqlite3.Error:
        return False
    finally:
        conn.close()


CREATING = ".new"  # a store being made: `.NAME.PID.TOKEN.new` in its folder, renamed when complete


def _create(path: Path, setup: Callable[[sqlite3.Connection], None] | None) -> None:
    """Make the store at `path` whole under a temporary name in its folder, then put it in place:
    linked where no file is (another process that made it first wins), or put over a blank file
    (under a lock on that file, so two creators never replace each other's store).

    The temporary file is removed however this ends; one a killed process left is removed by the
    next creation (its process is gone)."""
    _sweep(path)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{CREATING}"
    try:
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")  # kept in the file's header
            if setup is not None:
                setup(conn)
        finally:
            conn.close()  # the last connection: the WAL goes into the file and is removed
        with tmp.open("rb+") as fh:
            os.fsync(fh.fileno())
        _install(tmp, path)
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{tmp}{suffix}")


def _install(tmp: Path, path: Path) -> None:
    """Put the complete store `tmp` at `path`, unless another process put one there first."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        _replace_blank(tmp, path)
    except OSError:  # a file system without hard links
        if path.exists():
            _replace_blank(tmp, path)
        else:
            os.replace(tmp, path)
    _sync_folder(path.parent)


def _replace_blank(tmp: Path, path: Path) -> None:
    """Put `tmp` over the file at `path` if it is (still) blank, holding that file locked: a second
    creator waits, then finds a store there and leaves it be."""
    with path.open("rb") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            st = os.fstat(fh.fileno())
            if _identity(path) == (st.st_dev, st.st_ino) and blank(path):
                os.replace(tmp, path)
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _sync_folder(folder: Path) -> None:
    """The new name written to disk too (a power cut right after keeps the store)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _sweep(path: Path) -> None:
    """Remove the temporary files of creations whose process is gone (a `kill -9` mid-creation)."""
    prefix = f".{path.name}."
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent):
            name = entry.name
            if not name.startswith(prefix):
                continue
            stem = name[len(prefix) :].split(CREATING)[0]
            pid = stem.split(".")[0]
            if CREATING not in name or not pid.isdigit() or _alive(int(pid)):
                continue
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        return True
    return True


def schema_version(conn: sqlite3.Connection) -> int:
    """The store's shape (`SCHEMA_VERSION`), refused in one line when a newer plylab wrote it."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise UserError(
            f"this store was written by a newer plylab (store version {version}; this plylab reads up "
            f"to {SCHEMA_VERSION}); upgrade plylab to use it. It was left unchanged"
        )
    return version


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
        schema_version(conn)
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
