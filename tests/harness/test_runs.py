"""Determinism, side switching, resume and the store's shape."""

import json
import sqlite3
import subprocess
import sys

import pytest

from plylab.games import get_game
from plylab.harness.plan import single_plan
from plylab.harness.runner import run_plan
from plylab.harness.store import Store
from tests.support.cli import run_args
from tests.support.first_save import killed_after_first_save


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
    # Killed by the run itself right after its first saved game (a parent polling the store needed
    # strong MCTS to slow the games down, and still lost the race on a loaded machine).
    store = tmp_path / "s.sqlite"
    args = [
        sys.executable,
        "-m",
        "plylab",
        *run_args("tic_tac_toe", "random", "mcts:sims=200", games=30, store=store, quiet=False),
        "--run",
        "k",
        "--quiet",
    ]
    assert killed_after_first_save(args, store), "the run ended before it could be killed"
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
