"""An engine that fails is the world's failure, never a hang or a traceback (issue 37 point 3).

A fake engine on PATH (tests/support/fake_engine.py, named `stockfish` as plylab looks it up) stops
answering mid-search, dies, answers `zz99`, or never finishes its handshake, as the engine player
and as the oracle that grades chess. Each run ends in bounded time with one line saying why, its
game left unfinished for the same command to play again, and no engine process left behind. A bad
option is refused before any game by the engine's own range."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.support.engines import live, needs_fairy, needs_stockfish
from tests.support.fake_engine import install

DEADLINE = "2"  # PLYLAB_ENGINE_TIMEOUT: seconds per engine call, so a hang costs 3 x 2 s here
# the engine player, or a random game graded by the engine (the oracle)
ROLES = {
    "player": ("stockfish:nodes=300", "off"),
    "oracle": ("random", "nodes=300"),
}


def _alive_with(text: str, parent: int | None = None) -> list[str]:
    """Command lines of live processes that mention `text` (the fake engine's folder), or only
    those whose parent is `parent`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # ended while we looked
            continue
        zombie, ppid = fields[0] == "Z", int(fields[1])
        if text in cmd and not zombie and int(pid) != os.getpid() and parent in (None, ppid):
            found.append(cmd)
    return found


def _children(parent: int, text: str) -> list[int]:
    """Live children of `parent` whose command line mentions `text`."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        if ppid == parent and text in cmd and live(int(pid)):
            pids.append(int(pid))
    return pids


def _run(store: Path, player: str, score: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = ["run", "--game", "chess", "--player", player, "--opponent", "random", "--games", "1",
            "--score", score, "--store", str(store), "--quiet"]  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "plylab", *argv],
        capture_output=True,
        text=True,
        timeout=120,  # a hang fails the test here
        env={**os.environ, **env},
    )


def _saved(store: Path) -> int:
    with sqlite3.connect(store) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])


@pytest.mark.slow
@pytest.mark.parametrize("role", list(ROLES))
@pytest.mark.parametrize("mode", ["hang", "die", "lie", "stall"])
def test_a_failing_engine_leaves_the_game_unfinished_in_one_line(
    tmp_path: Path, mode: str, role: str
) -> None:
    player, score = ROLES[role]
    fake = tmp_path / "bin"
    env = {**install(fake, mode, after=4), "PLYLAB_ENGINE_TIMEOUT": DEADLINE}  # 4 good searches first
    store = tmp_path / "s.sqlite"
    started = time.monotonic()
    done = _run(store, player, score, env)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr
    [line] = [x for x in done.stderr.splitlines() if not x.startswith("run '")]  # the run's first line aside
    assert line.startswith(f"plylab: stockfish ({fake / 'stockfish'}) failed 3 times (")
    assert line.endswith("the game is left unfinished: re-run the same command to resume")
    why = {"hang": "search: no answer within 2 s", "die": "search: the engine exited (code 3)",
           "lie": "search: invalid uci: 'zz99'", "stall": "handshake: no answer within 2 s"}[mode]  # fmt: skip
    assert why in line, line
    assert "stopped (1 game unfinished by provider failures (engine 1)" in done.stdout, done.stdout
    assert _saved(store) == 0
    assert took < 60, f"{took:.0f} s"  # three tries of 2 s each, and the start of the run
    assert _alive_with(str(fake)) == []


@pytest.mark.slow
@needs_stockfish
def test_the_same_command_resumes_the_game_once_the_engine_answers(tmp_path: Path) -> None:
    fake, store = tmp_path / "bin", tmp_path / "s.sqlite"
    broken = {**install(fake, "hang", after=2), "PLYLAB_ENGINE_TIMEOUT": DEADLINE}
    first = _run(store, "stockfish:nodes=300", "nodes=300", broken)
    assert "1 game unfinished" in first.stdout and _saved(store) == 0, first.stdout + first.stderr
    again = _run(store, "stockfish:nodes=300", "nodes=300", {})  # Debian's Stockfish, found in /usr/games
    assert again.returncode == 0 and "finished" in again.stdout and _saved(store) == 1, again.stderr
    assert _alive_with(str(fake)) == []


@pytest.mark.slow
def test_an_engine_that_dies_once_is_restarted_and_the_game_goes_on(tmp_path: Path) -> None:
    fake, store = tmp_path / "bin", tmp_path / "s.sqlite"
    env = {**install(fake, "die", after=3, once=True), "PLYLAB_ENGINE_TIMEOUT": DEADLINE}
    done = _run(store, "stockfish:nodes=300", "off", env)
    assert done.returncode == 0 and "finished" in done.stdout, done.stdout + done.stderr
    assert "plylab:" not in done.stderr and _saved(store) == 1


@needs_stockfish
@pytest.mark.parametrize("spec, accepted", [("stockfish:skill=-1", "0 to 20"), ("stockfish:skill=21", None)])
def test_a_skill_off_the_engines_own_range_is_refused_in_one_line(
    cli, tmp_path: Path, spec, accepted
) -> None:
    before = Counter(_alive_with("stockfish", parent=os.getpid()))  # engines other tests of this worker hold
    done = cli("run", "--game", "chess", "--player", spec, "--opponent", "random", "--games", "1",
               "--score", "off", "--store", str(tmp_path / "s.sqlite"), "--quiet")  # fmt: skip
    assert done.code == 2 and "Traceback" not in done.err and len(done.err.strip().splitlines()) == 1, (
        done.err
    )
    if accepted is not None:  # Stockfish 15.1's floor is 0, read from its `uci` option list
        assert f"stockfish 15.1 accepts skill={accepted} (its Skill Level option), not skill=-1" in done.err
    left = Counter(_alive_with("stockfish", parent=os.getpid())) - before
    assert not left  # the engine asked for its range is gone


@pytest.mark.slow
@needs_fairy
def test_fairy_stockfish_takes_a_negative_skill(cli, tmp_path: Path) -> None:
    done = cli("run", "--game", "chess", "--player", "fairy-stockfish:skill=-20,nodes=100", "--opponent",
               "random", "--games", "1", "--score", "off", "--store", str(tmp_path / "s.sqlite"), "--quiet")  # fmt: skip
    assert done.code == 0 and "1/1 game saved" in done.out, done.err


@pytest.mark.slow
def test_a_bad_engine_deadline_is_one_line(tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    done = _run(
        tmp_path / "s.sqlite", "stockfish", "off", {**install(fake, "hang"), "PLYLAB_ENGINE_TIMEOUT": "soon"}
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "PLYLAB_ENGINE_TIMEOUT='soon' is not accepted" in done.stderr
    assert _alive_with(str(fake)) == []


@pytest.mark.slow
@needs_stockfish
def test_ctrl_c_during_an_engine_game_stops_it_at_once_and_leaves_no_engine(tmp_path: Path) -> None:
    """Ctrl-C from a terminal reaches the whole process group: the run stops at the next engine move
    (the engines, in their own group, are closed by the run, not killed under a search)."""
    import signal

    from tests.support.runs import spawn, wait_for_games

    store = tmp_path / "s.sqlite"
    argv = ["-m", "plylab", "run", "--game", "chess", "--player", "stockfish:nodes=20000", "--opponent",
            "random", "--games", "50", "--store", str(store), "--quiet"]  # fmt: skip
    proc = spawn(argv, start_new_session=True)
    try:
        wait_for_games(proc, store, 1, timeout=120)
        engines = _children(proc.pid, "stockfish")
        assert engines, "the player's and the oracle's engines run"
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal sends Ctrl-C
        started = time.monotonic()
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert "interrupted" in out and time.monotonic() - started < 20
    assert [pid for pid in engines if live(pid)] == []  # closed by the run: none orphaned
