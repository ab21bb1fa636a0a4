"""Pig's exact table (oracles.pig): build time, sweeps, size in memory and on disk, per target.

Usage: python bench/bench_pig.py [--targets 25,50,100] [--out bench/RESULTS-pig.md]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from plylab.oracles.pig import solve


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", default="25,50,100")
    ap.add_argument("--out", default="bench/RESULTS-pig.md")
    args = ap.parse_args()
    rows = []
    for target in [int(t) for t in args.targets.split(",")]:
        wall, cpu = time.perf_counter(), time.process_time()
        table, sweeps = solve(target)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "t.npz"
            np.savez_compressed(path, table=table, sweeps=sweeps, build_seconds=wall)
            disk = path.stat().st_size
        rows.append((target, sweeps, wall, cpu, table.nbytes, disk, float(table[0, 0, 0])))
    load = os.getloadavg()[0]
    lines = [
        "# Pig: exact table by value iteration",
        "",
        f"Command: `python bench/bench_pig.py --targets {args.targets}`",
        f"Machine: {os.cpu_count()} CPUs, load average {load:.1f} at the end (shared).",
        "One die (6 faces), two players; tolerance 1e-12 (no value moves more in the last sweep).",
        "",
        "| target | sweeps | build s (wall) | build s (CPU) | table MB (memory) | table MB (disk, npz) | first player wins |",
        "|---|---|---|---|---|---|---|",
    ]
    for t, s, w, c, mem, disk, p in rows:
        lines.append(f"| {t} | {s} | {w:.2f} | {c:.2f} | {mem / 1e6:.1f} | {disk / 1e6:.2f} | {p:.6f} |")
    lines += [
        "",
        "The table is built once per target and cached on disk (PLYLAB_CACHE); a later run loads it.",
    ]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
