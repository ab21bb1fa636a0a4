"""Hostile files and flags (issue 23, points 5-14 and 16): a file, a plan or a flag cannot damage a
store, hang a command, print a traceback or act on the terminal. Each ends as one line."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.cli import plylab_subprocess, run_args


def _bytes(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _store(cli, path: Path, games: int = 4) -> Path:
    res = cli(*run_args("tic_tac_toe", "random", "random", games=games, store=path), "--run", "r")
    assert res.code == 0, res.err
    return path


def _one_line(err: str) -> None:
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


# -- point 5: export never writes over the store it reads -----------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_export_refuses_the_store_as_its_output(cli, tmp_path: Path, fmt: str, suffix: str) -> None:
    store = _store(cli, tmp_path / "st.sqlite")
    before = _bytes(store)
    res = cli("export", f"{store}{suffix}", "--format", fmt, "--store", str(store))
    assert res.code == 2 and "is the store" in res.err, res.err
    _one_line(res.err)
    assert _bytes(store) == before
    assert cli("report", "--store", str(store)).code == 0


def test_export_refuses_another_name_for_the_store(cli, tmp_path: Path) -> None:
    store = _store(cli, tmp_path / "st.sqlite")
    os.link(store, tmp_path / "alias.csv")
    res = cli("export", str(tmp_path / "alias.csv"), "--store", str(store))
    assert res.code == 2 and "is the store" in res.err, res.err
    assert cli("report", "--store", str(store)).code == 0


# -- points 6 and 7: a writer refuses a foreign or damaged file before writing anything ------------


def _files(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_run_refuses_another_programs_database_before_any_write(cli, tmp_path: Path, journal: str) -> None:
    path = tmp_path / "contacts.db"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA journal_mode={journal}")
        conn.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
        conn.execute("INSERT INTO contacts VALUES ('ada', '555')")
    conn.close()
    before, files = _bytes(path), _files(path)
    res = cli(*run_args("tic_tac_toe", games=2, store=path))
    assert res.code == 2 and "not a plylab store" in res.err, res.err
    _one_line(res.err)
    assert _bytes(path) == before and _files(path) == files  # no tables added, no WAL switch, no -wal
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["contacts"]
    conn.close()


def test_run_on_an_empty_file_makes_a_store(cli, tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    path.write_bytes(b"")
    res = cli(*run_args("tic_tac_toe", games=2, store=path))
    assert res.code == 0, res.err


def _corrupt(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    pages = len(data) // page
    assert pages > 20
    for k in range(pages // 3, 2 * pages // 3):  # the middle third: moves and games, not the schema page
        data[k * page : (k + 1) * page] = bytes([0xA5]) * page
    path.write_bytes(bytes(data))


@pytest.mark.slow
def test_run_refuses_a_damaged_store_with_the_readers_line(cli, tmp_path: Path) -> None:
    path = _store(cli, tmp_path / "s.sqlite", games=200)
    _corrupt(path)
    reader = cli("report", "--store", str(path))
    before, files = _bytes(path), _files(path)
    res = cli(*run_args("tic_tac_toe", games=300, store=path), "--run", "r")
    assert res.code == 2 and "damaged" in res.err and "malformed" in res.err, res.err
    _one_line(res.err)
    assert res.err.split("(")[0] == reader.err.split("(")[0]  # the line the reading commands give
    assert _bytes(path) == before and _files(path) == files


# -- point 8: a store left by a full disk is read as SQLite reads it, with its -wal ---------------------


def _checkpoint_cut_short(cli, folder: Path) -> Path:
    """What a full disk leaves: every page in the -wal, and only page 1 (with the new schema and
    page count) copied back into a main file the disk had no room to grow."""
    source = _store(cli, folder / "source.sqlite", games=40)
    path = folder / "s.sqlite"
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    with sqlite3.connect(source) as src:
        src.backup(writer)
    src.close()
    left = folder / "left"
    left.mkdir()
    for suffix in ("", "-wal"):
        (left / f"s.sqlite{suffix}").write_bytes(Path(f"{path}{suffix}").read_bytes())
    writer.close()
    wal = (left / "s.sqlite-wal").read_bytes()
    size, offset, first = int.from_bytes(wal[8:12], "big"), 32, b""
    while offset + 24 + size <= len(wal):
        if int.from_bytes(wal[offset : offset + 4], "big") == 1:
            first = wal[offset + 24 : offset + 24 + size]
        offset += 24 + size
    with open(left / "s.sqlite", "r+b") as fh:
        fh.write(first)
    return left / "s.sqlite"


def test_a_store_left_by_a_full_disk_is_read_not_called_damaged(cli, tmp_path: Path) -> None:
    path = _checkpoint_cut_short(cli, tmp_path)
    report = cli("report", "--store", str(path), "--format", "csv")
    assert report.code == 0, report.err
    assert "tic_tac_toe,standard,random,random,40," in report.out
    out = tmp_path / "games.csv"
    assert cli("export", str(out), "--store", str(path)).code == 0
    assert len(out.read_text().splitlines()) == 41
    with sqlite3.connect(path) as conn:  # as SQLite itself reads it
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()


# -- point 9: a FIFO never hangs a command ----------------------------------------------------------


@pytest.mark.timeout(120)
@pytest.mark.parametrize(  # one command in the fast lane, the others (seconds each) in `make test`
    "flag",
    [
        "report --store",
        *(pytest.param(f, marks=pytest.mark.slow) for f in ("export out.csv --store", "run --config")),
    ],
)
def test_a_fifo_is_refused_not_waited_on(tmp_path: Path, flag: str) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    *words, option = flag.split()
    try:
        res = plylab_subprocess(*words, option, str(fifo), timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`plylab {flag} FIFO` hung")
    assert res.returncode == 2 and "not a regular file" in res.stderr, res.stderr
    _one_line(res.stderr)


# -- points 10 and 11: plans ------------------------------------------------------------------------


def _alias_bomb(levels: int = 9, keys: int = 9) -> str:
    lines = ["games: tic_tac_toe", "players: [random]", "opponents: [random]", "bombs:"]
    lines.append("  l0: &l0 {" + ", ".join(f"k{i}: standard" for i in range(keys)) + "}")
    for n in range(1, levels):
        lines.append(f"  l{n}: &l{n} {{" + ", ".join(f"k{i}: *l{n - 1}" for i in range(keys)) + "}")
    lines.append(f"formulations: *l{levels - 1}")
    return "\n".join(lines) + "\n"


def test_a_yaml_alias_bomb_is_refused_at_once(cli, tmp_path: Path) -> None:
    plan = tmp_path / "bomb.yaml"
    plan.write_text(_alias_bomb())
    res = cli("run", "--config", str(plan), "--store", str(tmp_path / "s.sqlite"), "--quiet")
    assert res.code == 2 and "YAML values with its aliases" in res.err and "at most 100,000" in res.err, (
        res.err
    )
    _one_line(res.err)
    assert not (tmp_path / "s.sqlite").exists()


def test_a_plan_too_large_in_bytes_or_matchups_is_refused(cli, tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("games: tic_tac_toe\nplayers: [random]\nopponents: [random]\n# " + "x" * 1_000_100 + "\n")
    res = cli("run", "--config", str(big), "--store", str(tmp_path / "s.sqlite"))
    assert res.code == 2 and "larger than 1,000,000 bytes" in res.err, res.err
    grid = tmp_path / "grid.yaml"
    many = ", ".join(f"mcts:sims={i}" for i in range(1, 400))
    grid.write_text(f"games: tic_tac_toe\nplayers: [{many}]\nopponents: [{many}]\n")
    res = cli("run", "--config", str(grid), "--store", str(tmp_path / "s.sqlite"))
    assert res.code == 2 and "159,201 matchups" in res.err and "at most 100,000" in res.err, res.err


def test_a_plan_naming_a_player_twice_is_refused(cli, tmp_path: Path) -> None:
    plan = tmp_path / "twice.yaml"
    plan.write_text(
        "games: tic_tac_toe\nplayers: [random, random]\nopponents: [random]\ngames_per_matchup: 2\n"
    )
    res = cli("run", "--config", str(plan), "--store", str(tmp_path / "s.sqlite"), "--quiet")
    assert res.code == 2 and "'players' names 'random' twice" in res.err, res.err
    _one_line(res.err)
    assert not (tmp_path / "s.sqlite").exists()


# -- points 12 and 13: game parameters OpenSpiel accepts but cannot play -----------------------------


@pytest.mark.parametrize(
    "game, needle",
    [
        ("hex:board_size=1", "after 1 move(s) a position that is not over has no legal move"),
        ("mnk:m=100000,n=100000,k=3", "too large: a board of 10,000,000,000 cells"),
    ],
)
def test_unplayable_game_parameters_are_one_line(capfd, tmp_path: Path, game: str, needle: str) -> None:
    from plylab.cli import main

    t0 = time.monotonic()
    code = main(run_args(game, games=1, store=tmp_path / "s.sqlite"))
    err = capfd.readouterr().err
    assert code == 2 and needle in err, err
    _one_line(err)
    assert time.monotonic() - t0 < 60  # refused before a board of 10^10 cells is built


@pytest.mark.parametrize("game", ["breakthrough:rows=1", "nim:pile_sizes=a"])
def test_openspiels_own_error_line_is_not_printed(capfd, tmp_path: Path, game: str) -> None:
    from plylab.cli import main

    code = main(run_args(game, games=1, store=tmp_path / "s.sqlite"))
    err = capfd.readouterr().err  # file-descriptor level: what OpenSpiel's C++ writes too
    assert code == 2 and "is not valid" in err and "OpenSpiel exception" not in err, err
    _one_line(err)


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_a_board_side_of_zero_is_refused_not_a_crash(tmp_path: Path) -> None:
    res = plylab_subprocess(*run_args("connect_four:rows=0", games=1, store=tmp_path / "s.sqlite"))
    assert res.returncode == 2 and "a board side of 0" in res.stderr, (res.returncode, res.stderr)
    _one_line(res.stderr)


# -- point 14: multi-line errors and terminal escapes ---------------------------------------------------

ESCAPES = "evil\x1b]0;pwned\x07\x1b[31mred\r\nname"


def test_a_spec_with_a_newline_is_a_one_line_error(cli, tmp_path: Path) -> None:
    res = cli(*run_args("tic_tac_toe", "random\nmore\nlines:x", games=1, store=tmp_path / "s.sqlite"))
    assert res.code == 2 and "random\\nmore\\nlines" in res.err, res.err
    _one_line(res.err)


def test_a_run_name_with_escapes_is_printed_inert(cli, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    res = cli(*run_args("tic_tac_toe", games=2, store=store), "--run", ESCAPES)
    assert res.code == 0, res.err
    assert "\x1b" not in res.out and "\x07" not in res.out and "\\x1b]0;pwned\\x07" in res.out
    assert len(res.out.strip().splitlines()) == 1
    listed = cli("report", "--store", str(store), "--run", "missing")  # names the runs it has
    assert listed.code == 2 and "\x1b" not in listed.err and "\\x1b]0;pwned" in listed.err, listed.err
    _one_line(listed.err)


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "latex"])
def test_report_tables_escape_stored_strings(fmt: str) -> None:
    from plylab.analysis.tables import format_grid

    text = format_grid(["run", "games"], [[ESCAPES, "2"], ["[bold]x[/bold]", "1"]], fmt, title=ESCAPES)
    assert not any(c in text for c in "\x1b\x07\r"), text
    assert "pwned" in text and "x1b]0;pwned" in text
    row = [line for line in text.splitlines() if "pwned" in line and "name" in line]  # not split
    assert len(row) == (2 if fmt == "table" else 1), text  # the terminal table also shows the title
    if fmt == "table":
        assert "[bold]x[/bold]" in text  # rich markup in a stored string is shown, not obeyed


def test_a_plan_name_with_escapes_is_printed_inert(cli, tmp_path: Path) -> None:
    plan = tmp_path / "p.yaml"
    plan.write_text('name: "bad\\e[2Jname"\ngames: tic_tac_toe\nplayers: [random]\nopponents: [random]\n')
    res = cli("run", "--config", str(plan), "--store", str(tmp_path / "s.sqlite"), "--games", "1", "--quiet")
    assert res.code == 0 and "\x1b" not in res.out and "bad\\x1b[2Jname" in res.out, res.out


# -- point 16: a refused api_key= is named, never echoed ------------------------------------------------


def test_a_refused_api_key_option_is_not_echoed(cli, tmp_path: Path) -> None:
    secret = "sk-typed-into-the-spec-5f4e3d2c1b"
    for spec in (f"llm:model=openai/gpt-5-mini,api_key={secret}", f"llm:api_key={secret},model=openai/x"):
        res = cli(*run_args("tic_tac_toe", spec, games=1, store=tmp_path / "s.sqlite"))
        assert res.code == 2 and "api_key" in res.err, res.err
        assert secret not in res.err and secret[:12] not in res.err
    assert not (tmp_path / "s.sqlite").exists()
