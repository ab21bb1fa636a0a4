"""Reading commands never change the file they read, refuse what is not a plylab store, read a
store on read-only media, and fail with one line on damaged stores, full disks and bad specs
(issue 15 points 3, 5, 8)."""

from __future__ import annotations

import hashlib
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from plylab.harness.store import Store
from tests.support.cli import run_args

READERS = (
    ("report",),
    ("report", "--format", "json"),
    ("report", "--learning"),
    ("clue", "report"),
)


def _fingerprint(path: Path) -> tuple[str, int, list[str]]:
    """Bytes, modification time and the files beside it: what 'left unchanged' means here."""
    return (
        hashlib.sha256(path.read_bytes()).hexdigest(),
        path.stat().st_mtime_ns,
        sorted(p.name for p in path.parent.iterdir()),
    )


def _store(cli, path: Path, games: int = 40) -> Path:
    res = cli(*run_args("tic_tac_toe", "random", "optimal", games=games, store=path), "--run", "r")
    assert res.code == 0, res.err
    return path


def _foreign(tmp_path: Path, kind: str) -> Path:
    d = tmp_path / kind
    d.mkdir()
    path = d / "data.db"
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "text":
        path.write_text("name,score\nada,3\n")
    else:  # another program's SQLite database, in rollback or WAL journal mode
        with sqlite3.connect(path) as conn:
            if kind == "sqlite-wal":
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
            conn.execute("INSERT INTO contacts VALUES ('ada', '555')")
        conn.close()
    assert not Path(f"{path}-wal").exists()
    return path


@pytest.mark.parametrize("kind", ["empty", "text", "sqlite", "sqlite-wal"])
def test_reading_commands_refuse_a_foreign_file_and_leave_it_unchanged(
    cli, tmp_path: Path, kind: str
) -> None:
    path = _foreign(tmp_path, kind)
    before = _fingerprint(path)
    for args in (*READERS, ("export", str(tmp_path / "out.csv"))):
        res = cli(*args, "--store", str(path))
        assert res.code == 2, (args, res.out, res.err)
        assert "not a plylab store" in res.err or "no Clue games" in res.err, (args, res.err)
        assert len(res.err.strip().splitlines()) == 1 and "Traceback" not in res.err
        assert _fingerprint(path) == before, f"{args} changed {path} or created files beside it"
    assert not (tmp_path / "out.csv").exists()


def test_report_html_on_a_foreign_file_writes_nothing(cli, tmp_path: Path) -> None:
    path = _foreign(tmp_path, "sqlite")
    before = _fingerprint(path)
    res = cli("report", "--store", str(path), "--html", str(tmp_path / "site"))
    assert res.code == 2 and "not a plylab store" in res.err
    assert _fingerprint(path) == before and not (tmp_path / "site").exists()


def _as_nobody() -> list[str] | None:
    """A prefix that runs a command as an unprivileged user, for whom chmod -w really forbids writes."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] if setpriv else None


@pytest.mark.slow
def test_a_store_on_read_only_media_is_read_and_left_unchanged(cli, tmp_path: Path) -> None:
    """chmod -w on the file and its directory, and the commands run as a user that cannot write
    there (as root, through setpriv): the report reads it, and not one byte or file changes."""
    prefix = _as_nobody()
    if prefix is None:
        pytest.skip("running as root without setpriv: cannot drop the privilege that ignores chmod")
    src = _store(cli, tmp_path / "w" / "s.sqlite")
    expected = cli("report", "--store", str(src), "--format", "json").out
    # Outside pytest's private (0700) temporary tree, so the unprivileged user can reach it.
    top = Path(tempfile.mkdtemp(prefix="plylab-ro-"))
    top.chmod(0o755)
    media, out = top / "media", top / "out"
    media.mkdir()
    out.mkdir()
    out.chmod(0o777)
    shutil.copy2(src, media / "s.sqlite")
    # A second copy taken while a writer held it: its newest run exists only in the -wal file.
    writer = Store(src)
    writer._conn.execute("PRAGMA wal_autocheckpoint=0")  # the test holds the -wal back
    writer.open_run("only-in-the-wal", 1, {})
    shutil.copy2(src, media / "live.sqlite")
    shutil.copy2(f"{src}-wal", media / "live.sqlite-wal")
    writer.close()
    for p in media.iterdir():
        p.chmod(0o444)
    media.chmod(0o555)
    try:
        before = _fingerprint(media / "s.sqlite")
        env = {
            **os.environ,
            "HOME": str(out),
            "MPLCONFIGDIR": str(out / "mpl"),
            "PLYLAB_CACHE": str(out / "cache"),
        }
        for args in (["report", "--format", "json"], ["export", str(out / "games.csv")]):
            res = subprocess.run(
                [*prefix, sys.executable, "-m", "plylab", *args, "--store", str(media / "s.sqlite")],
                capture_output=True,
                text=True,
                timeout=120,
                env=env,
            )
            assert res.returncode == 0, res.stderr
            if args[0] == "report":
                assert res.stdout == expected
        assert (out / "games.csv").read_text().count("\n") == 41
        assert _fingerprint(media / "s.sqlite") == before
        live = _fingerprint(media / "live.sqlite")
        res = subprocess.run(
            [
                *prefix,
                sys.executable,
                "-m",
                "plylab",
                "export",
                str(out / "runs.csv"),
                "--table",
                "runs",
                "--store",
                str(media / "live.sqlite"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert res.returncode == 0, res.stderr
        assert "only-in-the-wal" in (out / "runs.csv").read_text(), "games committed to the WAL are read too"
        assert _fingerprint(media / "live.sqlite") == live
    finally:
        media.chmod(0o755)
        shutil.rmtree(top)


def _checkpointed(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


@pytest.mark.slow
def test_a_store_with_corrupted_pages_is_one_line(cli, tmp_path: Path) -> None:
    path = _store(cli, tmp_path / "s.sqlite", games=200)
    _checkpointed(path)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    pages = len(data) // page
    assert pages > 20
    for k in range(pages // 3, 2 * pages // 3):  # the middle third: moves and games, not the schema page
        data[k * page : (k + 1) * page] = bytes([0xA5]) * page
    path.write_bytes(bytes(data))
    for args in (
        ("report",),
        ("report", "--html", str(tmp_path / "site")),
        ("export", str(tmp_path / "m.csv"), "--table", "moves"),
    ):
        res = cli(*args, "--store", str(path))
        assert res.code == 2, (args, res.err)
        assert "damaged" in res.err and "malformed" in res.err and len(res.err.strip().splitlines()) == 1
        assert "Traceback" not in res.err


@pytest.mark.slow
def test_a_full_disk_during_report_html_is_one_line_and_loses_nothing(cli, tmp_path: Path) -> None:
    """RLIMIT_FSIZE in the child stands in for a full disk: a write past it fails with EFBIG."""
    path = _store(cli, tmp_path / "store" / "s.sqlite", games=20)
    _checkpointed(path)
    sqlite3.connect(f"file:{path}?mode=ro", uri=True).execute(
        "SELECT 1 FROM runs"
    ).fetchall()  # -shm made here
    before = _fingerprint(path)
    limit = 16_000

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    res = subprocess.run(
        [sys.executable, "-m", "plylab", "report", "--store", str(path), "--html", str(tmp_path / "site")],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=small_files,
    )
    assert res.returncode == 2, res.stderr
    # (matplotlib may warn first that its own font cache could not be saved: not ours to silence)
    assert "Traceback" not in res.stderr and res.stderr.count("plylab: error:") == 1
    assert "disk full or file size limit reached" in res.stderr and "nothing in it is lost" in res.stderr
    assert _fingerprint(path) == before
    assert cli("report", "--store", str(path), "--html", str(tmp_path / "site")).code == 0, (
        "the same command works"
    )


def test_export_to_a_missing_directory_is_one_line(cli, tmp_path: Path) -> None:
    path = _store(cli, tmp_path / "s.sqlite", games=2)
    res = cli("export", str(tmp_path / "nope" / "games.csv"), "--store", str(path))
    assert res.code == 2 and "directory" in res.err and "does not exist" in res.err
    assert not (tmp_path / "nope").exists()


@pytest.mark.parametrize("spec", ["random:", "mcts:", "mcts: "])
def test_an_empty_option_list_is_refused(cli, tmp_path: Path, spec: str) -> None:
    res = cli(
        "run",
        "--game",
        "tic_tac_toe",
        "--player",
        spec,
        "--opponent",
        "random",
        "--games",
        "2",
        "--store",
        str(tmp_path / "s.sqlite"),
        "--quiet",
    )
    assert res.code == 2 and "nothing after ':'" in res.err, res.err
    assert not (tmp_path / "s.sqlite").exists()


@pytest.mark.parametrize(
    "option", ["sims=" + "9" * 30, "sims=-" + "9" * 30, "rollouts=" + str(2**64), "uct_c=1e999"]
)
def test_numbers_beyond_64_bits_in_a_spec_are_one_line(cli, tmp_path: Path, option: str) -> None:
    res = cli(
        "run",
        "--game",
        "tic_tac_toe",
        "--player",
        f"mcts:{option}",
        "--opponent",
        "random",
        "--games",
        "2",
        "--store",
        str(tmp_path / "s.sqlite"),
        "--quiet",
    )
    assert res.code == 2, res.err
    said = (
        "out of range",
        "greater than or equal",
        "less than or equal",
    )  # the 64-bit check or the option's own bound
    assert any(words in res.err for words in said) and "Traceback" not in res.err
    assert len(res.err.strip().splitlines()) == 1
