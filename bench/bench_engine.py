"""Chess graded by Stockfish (issue 28): positions scored per second at the default limit, an
80-ply game's scoring time, and a 40-game engine-vs-engine run's scoring time beside its playing time.

    BENCH_GAMES=40 .venv/bin/python bench/bench_engine.py

[1] grades every ply of random chess games (a fresh evaluation cache: every position searched),
then the same plies again (from the cache). [2] plays BENCH_GAMES games of two strength-limited
Stockfish players (`stockfish:elo=1350,nodes=2000` vs `stockfish:skill=3,nodes=2000`: varied games,
since a strength-limited engine draws its own random numbers) with `--score off`, timing the run,
then grades every stored move with a fresh cache, timing that. Writes bench/RESULTS-engine.md.
"""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = int(os.environ.get("BENCH_GAMES", "40"))


def grade_random_plies(plies: int, seed: int = 0) -> tuple[int, float, float]:
    from plylab.games import get_game
    from plylab.oracles.engine import engine_oracle

    game = get_game("chess")
    oracle = engine_oracle("chess", "")
    assert oracle is not None, "stockfish is not installed (make engines)"
    rng = random.Random(seed)
    moves = []
    state = game.new_state()
    while len(moves) < plies:
        if state.is_terminal():
            state = game.new_state()
        a = rng.choice(state.legal_actions())
        moves.append((state.clone(), a))
        state.apply_action(a)
    t0 = time.perf_counter()
    for s, a in moves:
        oracle.grade(s, a)
    searched = time.perf_counter() - t0
    t0 = time.perf_counter()
    for s, a in moves:
        oracle.grade(s, a)
    cached = time.perf_counter() - t0
    return len(moves), searched, cached


def engine_run(store: Path) -> float:
    cmd = [
        sys.executable, "-m", "plylab", "run", "--game", "chess",
        "--player", "stockfish:elo=1350,nodes=2000", "--opponent", "stockfish:skill=3,nodes=2000",
        "--games", str(GAMES), "--score", "off", "--store", str(store), "--quiet",
    ]  # fmt: skip
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t0


def score_store(store: Path) -> tuple[int, int, float]:
    from plylab.games import get_game
    from plylab.oracles.engine import engine_oracle

    engine = get_game("chess").engine
    oracle = engine_oracle("chess", "")
    assert oracle is not None
    rows = (
        sqlite3.connect(store).execute("SELECT state, action FROM moves WHERE action IS NOT NULL").fetchall()
    )
    t0 = time.perf_counter()
    for state, action in rows:
        oracle.grade(engine.deserialize_state(state), action)
    return len(rows), len({s for s, _ in rows}), time.perf_counter() - t0


def main() -> None:
    os.environ["PLYLAB_CACHE"] = tempfile.mkdtemp(prefix="bench-engine-")  # nothing cached before
    sys.path.insert(0, str(ROOT / "src"))
    from plylab.oracles.engine import Limit, engine_oracle

    oracle = engine_oracle("chess", "")
    assert oracle is not None
    n, searched, cached = grade_random_plies(160)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "s.sqlite"
        playing = engine_run(store)
        moves, positions, scoring = score_store(store)
    load = os.getloadavg()[0]
    lines = [
        f"[1] {oracle.source}: {n} plies of random chess graded in {searched:.1f} s = "
        f"{n / searched:.1f} positions/s searched ({1000 * searched / n:.0f} ms a ply; an 80-ply game "
        f"{80 * searched / n:.1f} s); again from the cache: {n / cached:.0f} positions/s",
        f"[2] {GAMES} games stockfish:elo=1350,nodes=2000 vs stockfish:skill=3,nodes=2000: "
        f"playing {playing:.1f} s (--score off, one process); scoring its {moves} moves "
        f"({positions} positions) at {Limit().text()}: {scoring:.1f} s "
        f"({scoring / max(playing, 1e-9):.2f}x the playing time)",
        f"load average at the end: {load:.1f} on {os.cpu_count()} cores",
    ]
    text = "\n".join(lines)
    print(text)
    (ROOT / "bench" / "RESULTS-engine.md").write_text(
        "## Chess graded by Stockfish (issue 28)\n\n"
        f"Command: `BENCH_GAMES={GAMES} .venv/bin/python bench/bench_engine.py`\n\n```\n{text}\n```\n\n"
        "- [1] One search per position at the default limit (one thread, hash cleared): the position\n"
        "  after a move is the next move's position, so each is searched once; a rerun or a report\n"
        "  reads the cache.\n"
        "- [2] Scoring runs after playing here, to time it apart; `plylab run` scores as it plays, in\n"
        "  the same process (the figure is what scoring adds to a run).\n"
    )


if __name__ == "__main__":
    main()
