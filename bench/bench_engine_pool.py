"""Chess graded by a pool of engine processes: positions graded per second at 1, 2 and every core,
against one bare engine process (a python-chess loop at the same limit), all in one run.

    .venv/bin/python bench/bench_engine_pool.py          # BENCH_POSITIONS=240 BENCH_NODES=20000

The positions are the plies of random chess games from a fixed seed (distinct, none cached). The bare
loop is python-chess's SimpleEngine on Stockfish (Threads=1, Hash=16, `ucinewgame` before every
search: what plylab's oracle asks of each process), one position after another. Each pool size then
grades the same positions through `EngineOracle.evaluate` (a fresh evaluation cache: every position
searched and stored; its processes started before the clock, as they are for most of a run),
every position submitted at once to the pool's threads, as a run's games in
flight and the moves of one game do. BENCH_ROUNDS rounds (default 2) of the bare loop and every
pool, interleaved, so a change of the machine's load falls on every figure (and shows in the bare
loop's figures, printed round by round); the ratios are of means against the bare loop's mean.
Every pool's evaluations are checked equal to the bare loop's. Then `plylab run` plays BENCH_GAMES
random-vs-random games one at a time, every move graded, with one engine and with every core's.
Writes bench/RESULTS-pool.md.
"""

from __future__ import annotations

import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POSITIONS = int(os.environ.get("BENCH_POSITIONS", "240"))
NODES = int(os.environ.get("BENCH_NODES", "20000"))
RUN_GAMES = int(os.environ.get("BENCH_GAMES", "4"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "2"))


def positions(n: int, seed: int = 0) -> list[str]:
    """FENs of the plies of random chess games, each position once."""
    from plylab.games import get_game
    from plylab.oracles.uci import fen_of

    game, rng, fens = get_game("chess"), random.Random(seed), list[str]()
    state = game.new_state()
    while len(fens) < n:
        if state.is_terminal():
            state = game.new_state()
        fen = fen_of(state)
        if fen not in fens:
            fens.append(fen)
        state.apply_action(rng.choice(state.legal_actions()))
    return fens


def bare(path: str, fens: list[str]) -> tuple[float, list[tuple[int | None, int | None]]]:
    """One engine process, one search after another, python-chess alone: (seconds, scores)."""
    import chess
    import chess.engine

    engine = chess.engine.SimpleEngine.popen_uci(path)
    try:
        engine.configure({"Threads": 1, "Hash": 16})
        scores = []
        t0 = time.perf_counter()
        for fen in fens:
            board = chess.Board(fen)
            info = engine.analyse(board, chess.engine.Limit(nodes=NODES), game=object())
            score = info["score"].pov(board.turn)
            scores.append((score.score(), score.mate()))
        return time.perf_counter() - t0, scores
    finally:
        engine.quit()


def pooled(path: str, fens: list[str], size: int) -> tuple[float, list[tuple[int | None, int | None]], int]:
    """The oracle's pool of `size` processes, every position submitted at once: (seconds, scores,
    processes started)."""
    import chess

    from plylab.oracles.engine import EngineOracle, EvalCache, Limit

    with tempfile.TemporaryDirectory() as tmp:
        oracle = EngineOracle("chess", Limit(nodes=NODES), path, EvalCache(Path(tmp) / "e.sqlite"), size=size)
        try:
            with ExitStack() as every:  # all `size` processes started before the clock, as in a long run
                for _ in range(size):
                    every.enter_context(oracle.pool.lend())
            boards = [chess.Board(fen) for fen in fens]
            t0 = time.perf_counter()
            futures = [oracle.executor.submit(oracle.evaluate, b) for b in boards]
            evals = [f.result() for f in futures]
            took = time.perf_counter() - t0
            started, pids = oracle.pool.started, oracle.pool.pids()
        finally:
            oracle.close()
    left = [p for p in pids if Path(f"/proc/{p}").exists()]
    assert not left, f"engine processes left after close: {left}"
    return took, [(e.cp, e.mate) for e in evals], started


def run_seconds(engines: int, games: int) -> tuple[float, int]:
    """`plylab run` of random-vs-random chess, one game at a time (`--concurrency 1`), every move
    graded at the bench's limit with a fresh cache and PLYLAB_ENGINES=engines: (seconds, moves)."""
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "s.sqlite"
        argv = ["run", "--game", "chess", "--player", "random", "--opponent", "random", "--games", str(games),
                "--score", f"nodes={NODES}", "--store", str(store), "--quiet"]  # fmt: skip
        env = {**os.environ, "PLYLAB_ENGINES": str(engines), "PLYLAB_CACHE": str(Path(tmp) / "cache")}
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "plylab", *argv], check=True, capture_output=True, env=env)
        took = time.perf_counter() - t0
        with sqlite3.connect(store) as conn:
            moves = int(conn.execute("SELECT COUNT(*) FROM moves WHERE grade IS NOT NULL").fetchone()[0])
    return took, moves


def main() -> None:
    sys.path.insert(0, str(ROOT / "src"))
    from plylab.oracles.engine import engine_path
    from plylab.oracles.engine_pool import cores

    path = engine_path("stockfish")
    assert path is not None, "stockfish is not installed (make engines)"
    fens = positions(POSITIONS)
    n = len(fens)
    all_cores = cores()
    sizes = sorted({1, 2, all_cores})
    bares: list[float] = []
    pools: dict[int, list[float]] = {size: [] for size in sizes}
    started: dict[int, int] = {}
    reference: list[tuple[int | None, int | None]] | None = None
    for _ in range(ROUNDS):  # interleaved, so a change of the machine's load falls on every figure
        took, scores = bare(path, fens)
        reference = reference or scores
        assert scores == reference, "the bare loop's evaluations differ between rounds"
        bares.append(took)
        for size in sizes:
            took, scores, started[size] = pooled(path, fens, size)
            assert scores == reference, f"pool of {size}: evaluations differ from the bare loop's"
            pools[size].append(took)
    played: dict[int, list[tuple[float, int]]] = {k: [] for k in sorted({1, all_cores})}
    for _ in range(ROUNDS):
        for k in played:
            played[k].append(run_seconds(k, RUN_GAMES))
    base = statistics.mean(bares)
    load = os.getloadavg()
    lines = [
        f"{n} positions of random chess, stockfish nodes={NODES}, Threads=1, hash cleared before every "
        f"search; {ROUNDS} rounds, interleaved",
        f"bare python-chess loop, one process: {', '.join(f'{n / t:.1f}' for t in bares)} positions/s "
        f"(mean {n / base:.1f}) = 1.00",
    ]
    runs = {size: (statistics.mean(times), started[size]) for size, times in pools.items()}
    for size, (took, started) in runs.items():
        label = f"pool of {size}" + (" (every core)" if size == all_cores else "")
        lines.append(
            f"{label}: {n / took:.1f} positions/s = {base / took:.2f}x the bare loop "
            f"({started} processes started; evaluations identical to the bare loop's)"
        )
    one = statistics.mean(t for t, _ in played[1])
    for k, rounds in played.items():
        took, moves = statistics.mean(t for t, _ in rounds), rounds[0][1]
        lines.append(
            f"plylab run, {RUN_GAMES} random-vs-random games one at a time, PLYLAB_ENGINES={k}: {took:.1f} s "
            f"(mean of {ROUNDS}) for {moves} graded moves = {moves / took:.1f} moves/s "
            f"({one / took:.2f}x one engine)"
        )
    lines.append(
        f"cores this process may use: {all_cores}; load average at the end: "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min)"
    )
    text = "\n".join(lines)
    print(text)
    (ROOT / "bench" / "RESULTS-pool.md").write_text(
        "## Chess graded by a pool of engine processes\n\n"
        f"Command: `BENCH_POSITIONS={POSITIONS} BENCH_NODES={NODES} BENCH_GAMES={RUN_GAMES} BENCH_ROUNDS={ROUNDS} .venv/bin/python "
        f"bench/bench_engine_pool.py`\n\n```\n{text}\n```\n\n"
        "- One run, on a 2-core machine shared with other work (its load average is printed): compare\n"
        "  the ratios, which are measured within the run against the bare loop's mean, not the\n"
        "  absolute figures across sections. On a busy machine a second process gains only the share\n"
        "  of the cores the others leave it.\n"
        "- The pool's processes are the bare loop's engine, one thread each, with plylab's oracle\n"
        "  around them (the evaluation cache, the deadlines and restarts); a pool of one shows what\n"
        "  that costs, the larger pools what grading at once gains. Every core here is the number\n"
        "  the pool takes by default (PLYLAB_ENGINES sets another).\n"
        "- The `plylab run` lines time whole runs (start-up, playing, the store) of one game at a time:\n"
        "  the session hands each move's grade to the pool while the game goes on, so even one game's\n"
        "  positions are searched at once.\n"
    )


if __name__ == "__main__":
    main()
