"""Core harness benchmarks (issue 2). Run: .venv/bin/python bench/bench_harness.py

1. games/s, random vs random on tic-tac-toe: a bare pyspiel loop vs plylab's session loop (no store)
   vs a full plylab run (every move scored against the oracle, every game committed to SQLite).
2. seconds per move: plylab `mcts` (OpenSpiel's C++ MCTSBot) vs OpenSpiel's Python MCTS, same budget.
3. seconds to build the exact minimax tables from scratch.
4. a billion-game `plylab run`: seconds until the first game is saved, and resident memory as it plays
   (jobs are drawn as games start, so neither grows with --games). Alone: `bench_harness.py big`.
All figures come from one process in one run, so they compare as ratios on a noisy machine.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts as py_mcts

from plylab.games import get_game
from plylab.harness.plan import single_plan
from plylab.harness.runner import run_plan
from plylab.harness.session import play_game
from plylab.oracles.minimax import MinimaxTable
from plylab.players import RunContext, Turn, make_player

N_GAMES = int(os.environ.get("BENCH_GAMES", "2000"))


def bare_loop(n: int) -> float:
    game = pyspiel.load_game("tic_tac_toe")
    rng = random.Random(0)
    t0 = time.perf_counter()
    for _ in range(n):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
    return n / (time.perf_counter() - t0)


def session_loop(n: int, score: bool) -> float:
    plan = single_plan("tic_tac_toe", "standard", "random", "random", n, 0, "bench")
    jobs = list(plan.jobs())

    async def go() -> None:
        for job in jobs:
            await play_game(job, RunContext(), score=score)

    t0 = time.perf_counter()
    asyncio.run(go())
    return n / (time.perf_counter() - t0)


def full_run(n: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        plan = single_plan("tic_tac_toe", "standard", "random", "random", n, 0, "bench")
        t0 = time.perf_counter()
        run_plan(plan, Path(tmp) / "s.sqlite", progress=False)
        return n / (time.perf_counter() - t0)


def durable_commits_per_second(n: int) -> float:
    """The floor of a durable store: one WAL transaction with one small row per game."""
    from plylab.harness.store import connect, transaction

    with tempfile.TemporaryDirectory() as tmp:
        conn = connect(Path(tmp) / "s.sqlite")
        conn.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
        t0 = time.perf_counter()
        for i in range(n):
            with transaction(conn):
                conn.execute("INSERT INTO t VALUES (?, ?)", (i, "x" * 200))
        rate = n / (time.perf_counter() - t0)
        conn.close()
        return rate


def mcts_seconds_per_move(game_name: str, sims: int, moves: int) -> tuple[float, float]:
    """(plylab C++ MCTS, OpenSpiel Python MCTS) seconds per move from the same positions."""
    gdef = get_game(game_name)
    rng = random.Random(1)
    states = []
    for _ in range(moves):  # a few shallow random positions
        s = gdef.new_state()
        for _ in range(rng.randrange(0, 4)):
            s.apply_action(rng.choice(s.legal_actions()))
        states.append(s)
    form = gdef.formulation("standard")
    player = make_player(f"mcts:sims={sims}", gdef, seed=0)
    t0 = time.perf_counter()
    for i, s in enumerate(states):
        asyncio.run(player.act(Turn(gdef, form, s.clone(), s.current_player(), i, "bench")))
    ours = (time.perf_counter() - t0) / len(states)
    evaluator = py_mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = py_mcts.MCTSBot(gdef.engine, 2.0, sims, evaluator, random_state=np.random.RandomState(0))
    t0 = time.perf_counter()
    for s in states:
        bot.step(s.clone())
    theirs = (time.perf_counter() - t0) / len(states)
    return ours, theirs


def table_build_seconds(name: str) -> float:
    return MinimaxTable.build(get_game(name).engine).build_seconds


def _saved(store: Path) -> int:
    try:
        return int(sqlite3.connect(store).execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def _rss_mb(pid: int) -> float:
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def billion_games() -> tuple[float, list[tuple[int, float]]]:
    """(seconds from launch to the first saved game, [(games saved, RSS MB)]) of a 10^9-game run."""
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "s.sqlite"
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "plylab",
                "run",
                "--game",
                "tic_tac_toe",
                "--player",
                "random",
                "--opponent",
                "random",
                "--games",
                "1000000000",
                "--store",
                str(store),
                "--quiet",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while _saved(store) == 0 and time.perf_counter() - t0 < 120:
            time.sleep(0.01)
        first = time.perf_counter() - t0
        samples = []
        for target in (100, 1000, 5000, 20000):
            while _saved(store) < target and proc.poll() is None:
                time.sleep(0.05)
            samples.append((_saved(store), _rss_mb(proc.pid)))
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        return first, samples


def report_billion() -> None:
    first, samples = billion_games()
    print(
        f"[4] plylab run --games 1000000000: first game saved {first:.2f} s after launch (interpreter start included)"
    )
    print("    resident memory: " + ", ".join(f"{rss:.0f} MB at {n} games" for n, rss in samples))


def main() -> None:
    if sys.argv[1:] == ["big"]:
        report_billion()
        return
    print(
        f"python {sys.version.split()[0]}, pyspiel {pyspiel.__version__ if hasattr(pyspiel, '__version__') else ''}"
    )
    get_game("tic_tac_toe").oracle()  # table load is not part of the loop
    bare = bare_loop(N_GAMES)
    sess_noscore = session_loop(N_GAMES, score=False)
    sess = session_loop(N_GAMES, score=True)
    full = full_run(N_GAMES)
    print(f"[1] random vs random, tic-tac-toe, {N_GAMES} games")
    print(f"    bare pyspiel loop                       {bare:10.0f} games/s")
    print(
        f"    plylab session loop, no scoring         {sess_noscore:10.0f} games/s  ({bare / sess_noscore:.2f}x bare)"
    )
    print(f"    plylab session loop, oracle-scored      {sess:10.0f} games/s  ({bare / sess:.2f}x bare)")
    print(f"    plylab run (scored + SQLite, durable)   {full:10.0f} games/s  ({bare / full:.2f}x bare)")
    floor = durable_commits_per_second(N_GAMES)
    print(
        f"    limit: one durable SQLite commit/game   {floor:10.0f} commits/s (run reaches {full / floor:.0%} of it)"
    )
    for game, sims, moves in (("tic_tac_toe", 1000, 10), ("connect_four", 5000, 4)):
        ours, theirs = mcts_seconds_per_move(game, sims, moves)
        print(
            f"[2] mcts sims={sims} on {game}: plylab (C++ MCTSBot) {ours * 1000:8.1f} ms/move, "
            f"OpenSpiel Python MCTS {theirs * 1000:8.1f} ms/move  ({theirs / ours:.1f}x faster)"
        )
    for name in ("tic_tac_toe", "nim"):
        times = [table_build_seconds(name) for _ in range(3)]
        print(f"[3] exact table build, {name}: {statistics.median(times):.3f} s (median of 3)")
    report_billion()


if __name__ == "__main__":
    main()
