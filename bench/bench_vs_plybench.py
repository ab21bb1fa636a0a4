"""plylab beside plybench 3.0.5 (the first paper's own package) on the same jobs, in one run.

plybench needs Python >= 3.12, so it lives in a venv of its own; point PLYBENCH_PYTHON at it:

    ~/.pyenv/versions/3.12.1/bin/python -m venv /tmp/plyb-venv
    /tmp/plyb-venv/bin/pip install plybench==3.0.5
    PLYBENCH_PYTHON=/tmp/plyb-venv/bin/python .venv/bin/python bench/bench_vs_plybench.py [--games N]

Each job is the whole user path in a fresh process: play N games (sides switched after half), then
compute per-move optimality against the exact oracle. plybench: `Benchmark.run` + `BenchmarkAnalysis`
(its JSON result files); plylab: `plylab run` (every game durable in SQLite) + `plylab report --format
json`. Wall seconds per job, and the optimality rate each tool reports, so the ratio and the
agreement of the two numbers come from the same run on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLYLAB = [sys.executable, "-m", "plylab"]

# (label, plylab player, plylab opponent, plybench player, plybench opponent)
JOBS = [
    ("random vs optimal", "random", "optimal", "random", "optimal:stochastic=True"),
    (
        "mcts(1000) vs optimal",
        "mcts:sims=1000,solve=true",
        "optimal",
        "mcts:max_simulations=1000",
        "optimal:stochastic=True",
    ),
]

PLYBENCH_JOB = r"""
import asyncio, json, os, sys, time
os.chdir(sys.argv[1])
from plybench.app import PlyBench
from plybench.harness.benchmark.benchmark import Benchmark
from plybench.analysis.benchmark import BenchmarkAnalysis
player, opponent, n = sys.argv[2], sys.argv[3], int(sys.argv[4])
op = PlyBench()
bench = Benchmark("bench", op, ["tic_tac_toe"], [player], [opponent], n)
results = asyncio.run(bench.run(sync=True, concurrency=1))
stats = BenchmarkAnalysis(results, op.registry).analyze(progress=False)[0].to_dict()
print(json.dumps(stats))
"""


def _optimality(stats: dict) -> float | None:
    """plybench's non-trivial optimality (states where some move is not optimal excluded), as plylab's."""
    cell = stats["metrics"]["combined"]["metrics"].get("optimality_rate_non_trivial")
    return None if cell is None else float(cell["value"])


def run_plybench(python: str, player: str, opponent: str, n: int) -> tuple[float, float | None]:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        out = subprocess.run(
            [python, "-c", PLYBENCH_JOB, tmp, player, opponent, str(n)],
            capture_output=True,
            text=True,
            check=True,
        )
        took = time.perf_counter() - start
    return took, _optimality(json.loads(out.stdout.strip().splitlines()[-1]))


def run_plylab(player: str, opponent: str, n: int) -> tuple[float, float | None]:
    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "s.sqlite")
        start = time.perf_counter()
        subprocess.run(
            [
                *PLYLAB,
                "run",
                "--game",
                "tic_tac_toe",
                "--player",
                player,
                "--opponent",
                opponent,
                "--games",
                str(n),
                "--seed",
                "1",
                "--store",
                store,
                "--quiet",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        out = subprocess.run(
            [*PLYLAB, "report", "--store", store, "--format", "json"],
            capture_output=True,
            text=True,
            check=True,
        )
        took = time.perf_counter() - start
    row = json.loads(out.stdout)["matchups"][0]
    return took, (row.get("optimality") or {}).get("rate")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    args = ap.parse_args()
    python = os.environ.get("PLYBENCH_PYTHON", "/tmp/plyb-venv/bin/python")
    if not Path(python).exists():
        sys.exit(
            f"plybench's interpreter not found at {python}: set PLYBENCH_PYTHON (see this file's docstring)"
        )
    # Warm both: plybench solves and caches tic-tac-toe on first use, plylab builds its table.
    run_plybench(python, "random", "optimal:stochastic=True", 2)
    run_plylab("random", "optimal", 2)
    print(f"tic-tac-toe, {args.games} games per job, sides switched after half, one process per tool per job")
    for label, ours, our_opp, theirs, their_opp in JOBS:
        t_pb, o_pb = run_plybench(python, theirs, their_opp, args.games)
        t_pl, o_pl = run_plylab(ours, our_opp, args.games)
        print(
            f"  {label:24s} plybench {t_pb:6.2f} s (optimality {o_pb if o_pb is None else round(o_pb, 3)})"
            f"  plylab {t_pl:6.2f} s (optimality {o_pl if o_pl is None else round(o_pl, 3)})"
            f"  plylab/plybench time {t_pl / t_pb:.2f}x"
        )


if __name__ == "__main__":
    main()
