"""Determinism, side switching, resume and the store's shape."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from plylab.games import get_game
from plylab.harness.plan import single_plan
from plylab.harness.runner import run_plan
from plylab.harness.store import Store
from tests.support.cli import run_args


def moves_by_job(path):
    s = Store(path, create=False)
    try:
        return {g.job_key: [(m.seat, m.action) for m in s.moves(g.id)] for g in s.games()}
    finally:
        s.close()


def test_same_seed_same_games_different_seed_different_games(tmp_path):
    plan = lambda seed: single_plan("tic_tac_toe", "standard", "mcts:sims=50", "random", 6, seed, "r")  # noqa: E731
    run_plan(plan(1), tmp_path / "a.sqlite", progress=False)
    run_plan(plan(1), tmp_path / "b.sqlite", progress=False)
    run_plan(plan(2), tmp_path / "c.sqlite", progress=False)
    a, b, c = (moves_by_job(tmp_path / f"{x}.sqlite") for x in "abc")
    assert a == b
    assert list(a.values()) != list(c.values())


def test_sides_switch_after_half(tmp_path):
    run_plan(
        single_plan("nim", "standard", "random", "optimal", 5, 0, "r"), tmp_path / "s.sqlite", progress=False
    )
    s = Store(tmp_path / "s.sqlite", create=False)
    seats = [g.player_seat for g in sorted(s.games(), key=lambda g: g.idx)]
    assert seats == [0, 0, 0, 1, 1]
    for g in s.games():  # the first move of every game is made by seat 0, whoever plays it
        assert s.moves(g.id)[0].seat == 0


def test_rerun_skips_finished_games_and_a_different_plan_is_refused(tmp_path, cli):
    store = tmp_path / "s.sqlite"
    args = [
        *run_args("nim", games=4, store=store, quiet=False),
        "--run",
        "x",
        "--quiet",
    ]
    assert cli(*args).code == 0
    again = cli(*args)
    assert again.code == 0 and "0 played now, 4 already there" in again.out
    other = cli(*args[:-3], "--seed", "9", "--run", "x", "--quiet")
    assert other.code == 2 and "different plan" in other.err


def test_every_stored_game_replays_to_its_recorded_outcome(tmp_path):
    run_plan(
        single_plan("tic_tac_toe", "standard", "random", "random", 10, 4, "r"),
        tmp_path / "s.sqlite",
        progress=False,
    )
    s = Store(tmp_path / "s.sqlite", create=False)
    game = get_game("tic_tac_toe")
    for g in s.games():
        moves = s.moves(g.id)
        state = game.new_state()
        for m in moves:
            assert m.state == state.serialize()
            assert json.loads(m.legal) == state.legal_actions()
            state.apply_action(m.action)
        assert state.is_terminal()
        assert json.loads(g.returns) == state.returns()


@pytest.mark.slow
def test_kill_9_mid_run_resumes_with_no_game_lost_or_doubled(tmp_path):
    # Strong MCTS makes each game take ~0.1 s, so a kill 20 ms after the first save lands mid-run even on
    # a fast machine (weak players finish all 30 games between two polls).
    store = tmp_path / "s.sqlite"
    args = [
        sys.executable,
        "-m",
        "plylab",
        *run_args("tic_tac_toe", "mcts:sims=20000", "mcts:sims=20000", games=30, store=store, quiet=False),
        "--run",
        "k",
        "--quiet",
    ]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:  # wait until some, but not all, games are saved
        time.sleep(0.02)
        if store.exists():
            try:
                n = sqlite3.connect(store).execute("SELECT COUNT(*) FROM games").fetchone()[0]
            except sqlite3.OperationalError:
                continue
            if n >= 1:
                break
    assert proc.poll() is None, "the run ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    saved_before = sqlite3.connect(store).execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert 0 < saved_before < 30
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    conn = sqlite3.connect(store)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    keys = [r[0] for r in conn.execute("SELECT job_key FROM games")]
    assert len(keys) == 30 and len(set(keys)) == 30
    orphans = conn.execute(
        "SELECT COUNT(*) FROM moves WHERE game_id NOT IN (SELECT id FROM games)"
    ).fetchone()[0]
    assert orphans == 0
    per_game = conn.execute(
        "SELECT g.num_moves, COUNT(m.ply) FROM games g JOIN moves m ON m.game_id=g.id GROUP BY g.id"
    ).fetchall()
    assert all(a == b for a, b in per_game)
