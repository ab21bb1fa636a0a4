"""Clue benchmarks (issue 7). Run: .venv/bin/python bench/bench_clue.py [--games N] [--out PATH|-]

1. SAT oracle: milliseconds per update (one seat's backbone refreshed after one turn), over every
   seat of real bot games, next to the possibility matrix's update; plus SAT calls per update and
   the cold start (building an oracle from a view).
2. Bot-only play, games per second: bare games (no referee), judged games (a referee runs an
   oracle and a matrix for every seat, as `plylab clue run` does), and full runs into SQLite.
Wall-clock and CPU seconds are both reported: CPU seconds are the stable figure on a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

from plylab.clue.game import ClueHooks
from plylab.clue.matrix import PossibilityMatrix
from plylab.clue.oracle import ClueOracle
from plylab.clue.study import ClueJob, ClueStudy, RunPlan, run_plan
from plylab.games import get_game
from plylab.harness.hooks import hooks_for, register_hooks
from plylab.harness.records import GameRecord
from plylab.harness.session import play_game

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "RESULTS-clue.md"
SPECS = ["clue-oracle", "clue-matrix", "clue-random", "clue-random", "clue-random", "clue-random"]


class Unjudged(ClueHooks):
    """Clue without its referee: bare play, to time the referee apart."""

    def annotator(self, game, state):  # type: ignore[no-untyped-def,override]
        return None


def job(seed: int) -> ClueJob:
    """Game 0 of a run seeded `seed`: seats shuffled and cards dealt by the game's seed."""
    return next(ClueStudy(RunPlan(SPECS, 1, seed=seed)).jobs(set()))


def play(seed: int, judge: bool = True) -> GameRecord:
    """One game on the session (the referee judging every seat, or not)."""
    j = job(seed)
    game = get_game(j.matchup.game)
    kept = hooks_for(game)
    register_hooks(game, kept if judge else Unjudged())
    try:
        return asyncio.run(play_game(j))
    finally:
        register_hooks(game, kept)


def oracle_updates(games: int) -> dict[str, float]:
    """Replay judged games and time every per-seat oracle and matrix update."""
    oracle_ms: list[float] = []
    oracle_cpu_ms: list[float] = []
    matrix_ms: list[float] = []
    cold_ms: list[float] = []
    calls = updates = 0
    for i in range(games):
        rec = play(1000 + i, judge=False)
        game = get_game(job(1000 + i).matchup.game).engine
        state = game.deserialize_state(rec.moves[0].state)  # dealt, before the first turn
        oracles, matrices = [], []
        for p in range(6):
            t = time.perf_counter()
            oracles.append(ClueOracle.for_view(state.view(p)))
            cold_ms.append((time.perf_counter() - t) * 1e3)
            matrices.append(PossibilityMatrix.for_view(state.view(p)))
        for move in rec.moves:
            assert move.action is not None
            state.apply_action(move.action)
            if state.pending is not None:  # the disprover shows a card before the turn ends
                continue
            for p in range(6):
                view = state.view(p)
                t, c = time.perf_counter(), time.process_time()
                oracles[p].update(view)
                oracle_ms.append((time.perf_counter() - t) * 1e3)
                oracle_cpu_ms.append((time.process_time() - c) * 1e3)
                t = time.perf_counter()
                matrices[p].update(view)
                matrix_ms.append((time.perf_counter() - t) * 1e3)
        calls += sum(o.sat_calls for o in oracles)
        updates += sum(o.updates for o in oracles)
        for o in oracles:
            o.close()
    qs = statistics.quantiles(oracle_ms, n=100)
    return {
        "updates": len(oracle_ms),
        "oracle_mean_ms": statistics.fmean(oracle_ms),
        "oracle_median_ms": statistics.median(oracle_ms),
        "oracle_p95_ms": qs[94],
        "oracle_max_ms": max(oracle_ms),
        "oracle_cpu_mean_ms": statistics.fmean(oracle_cpu_ms),
        "oracle_cpu_p95_ms": statistics.quantiles(oracle_cpu_ms, n=100)[94],
        "sat_calls_per_update": calls / updates,
        "cold_ms": statistics.fmean(cold_ms),
        "matrix_mean_ms": statistics.fmean(matrix_ms),
    }


def games_per_second(games: int) -> dict[str, tuple[float, float]]:
    """(wall games/s, CPU games/s) for bare play, judged play and full stored runs."""
    out = {}
    for label, judge in (("bare", False), ("judged", True)):
        w, c = time.perf_counter(), time.process_time()
        for i in range(games):
            play(2000 + i, judge=judge)
        out[label] = (games / (time.perf_counter() - w), games / (time.process_time() - c))
    with tempfile.TemporaryDirectory() as tmp:
        w, c = time.perf_counter(), time.process_time()
        run_plan(RunPlan(SPECS, games, seed=3), Path(tmp) / "b.sqlite", progress=False)
        out["stored run"] = (games / (time.perf_counter() - w), games / (time.process_time() - c))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--out", default=str(RESULTS), help="markdown file to write, or - to print only")
    args = ap.parse_args()
    load_before = os.getloadavg()[0]
    upd = oracle_updates(args.games)
    gps = games_per_second(args.games)
    lines = [
        "# Clue benchmark",
        "",
        f"Command: `.venv/bin/python bench/bench_clue.py {shlex.join(sys.argv[1:])}`",
        f"Machine: {os.cpu_count()} CPUs, load average {load_before:.1f} at start (shared; CPU-time figures are the stable ones).",
        f"Games: {args.games} per figure, seats `{' '.join(SPECS)}` (seating shuffled per game).",
        "",
        "## SAT oracle (python-sat, Glucose 4, incremental backbone)",
        "",
        "| figure | value |",
        "|---|---|",
        f"| updates timed (every seat, every turn) | {upd['updates']} |",
        f"| oracle ms per update, mean | {upd['oracle_mean_ms']:.3f} |",
        f"| oracle ms per update, median | {upd['oracle_median_ms']:.3f} |",
        f"| oracle ms per update, p95 | {upd['oracle_p95_ms']:.3f} |",
        f"| oracle ms per update, max | {upd['oracle_max_ms']:.3f} |",
        f"| oracle CPU ms per update, mean | {upd['oracle_cpu_mean_ms']:.3f} |",
        f"| oracle CPU ms per update, p95 | {upd['oracle_cpu_p95_ms']:.3f} |",
        f"| SAT calls per update | {upd['sat_calls_per_update']:.2f} |",
        f"| oracle cold start from a view, ms | {upd['cold_ms']:.3f} |",
        f"| possibility matrix ms per update, mean | {upd['matrix_mean_ms']:.3f} |",
        "",
        "## Bot-only play",
        "",
        "| mode | games/s (wall) | games/s (CPU) |",
        "|---|---|---|",
    ]
    for label, (wall, cpu) in gps.items():
        lines.append(f"| {label} | {wall:.2f} | {cpu:.2f} |")
    lines += [
        "",
        "bare: engine + players only; judged: plus a referee with an oracle and a matrix per seat (what",
        "`plylab clue run` does, for the metrics); stored run: `run_plan` into a fresh SQLite store.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out != "-":
        Path(args.out).write_text(text)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
