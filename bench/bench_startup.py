"""CLI start-up (issues 22 and 50). Run: .venv/bin/python bench/bench_startup.py [--short] [--write]

Wall and CPU time (user + system) of short `plylab` commands, each a fresh process, beside a bare
`python -c pass` and the yardstick `python -c "import pyspiel"` on the same interpreter: `--help`, `games`,
`solve`, `report` of a small store (20 tic-tac-toe games), and a 100-game tic-tac-toe run (random vs random,
scored and stored), which is start-up bound (`--short`: `--help` and `games` only). Commands alternate run by
run so machine load hits them alike; the median of RUNS runs is reported, with its ratio to the yardstick's
median in the same run (the figure to compare across runs on a shared machine: importing OpenSpiel costs the
same wherever it runs). `--write` also writes bench/RESULTS-startup.md.
"""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = int(os.environ.get("BENCH_RUNS", "7"))
YARDSTICK = 'python -c "import pyspiel"'
BENCH = Path(__file__).resolve().parent


def plylab() -> list[str]:
    """The installed console script beside this interpreter (what a person types), else `-m plylab`."""
    script = Path(sys.executable).parent / "plylab"
    return [str(script)] if script.exists() else [sys.executable, "-m", "plylab"]


# As an installed package runs: with bytecode caches (a set-up may export PYTHONDONTWRITEBYTECODE,
# which would make every run compile plylab's sources again).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of `argv`."""
    t0 = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {child.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="plylab-startup-"))
    cmd = plylab()
    try:
        store = work / "small.sqlite"
        subprocess.run(
            [*cmd, "run", "--game", "tic_tac_toe", "--player", "random", "--opponent", "random"]
            + ["--games", "20", "--store", str(store), "--quiet"],
            check=True,
            env=ENV,
            stdout=subprocess.DEVNULL,
        )
        solve = [*cmd, "solve", "--game", "tic_tac_toe", "--moves", "B2 A1"]
        cases: list[tuple[str, list[str], str]] = [
            ("python -c pass", [sys.executable, "-c", "pass"], ""),
            (YARDSTICK, [sys.executable, "-c", "import pyspiel"], ""),
            ("plylab --help", [*cmd, "--help"], "0.2 s"),
            ("plylab games", [*cmd, "games"], "0.5 s"),
            ("plylab solve --game tic_tac_toe --moves 'B2 A1'", solve, "0.5 s"),
            ("plylab report (a 20-game store)", [*cmd, "report", "--store", str(store)], "0.5 s"),
            ("plylab run: 100 tic-tac-toe games, random v random", [], ""),
        ]
        if "--short" in sys.argv:
            cases = cases[:4]
        big = work / "run.sqlite"

        def hundred(i: int) -> list[str]:
            return [*cmd, "run", "--game", "tic_tac_toe", "--player", "random", "--opponent", "random"] + [
                "--games",
                "100",
                "--run",
                f"r{i}",
                "--store",
                str(big),
                "--quiet",
            ]

        wall: dict[str, list[float]] = {name: [] for name, _, _ in cases}
        cpu: dict[str, list[float]] = {name: [] for name, _, _ in cases}
        for _name, argv, _ in cases:  # warm-up, not counted: bytecode caches, the oracle table, disk cache
            timed(argv or hundred(-1), work)
        for i in range(RUNS):
            for name, argv, _ in cases:
                w, c = timed(argv or hundred(i), work)
                wall[name].append(w)
                cpu[name].append(c)
        bare_wall, bare_cpu = statistics.median(wall[cases[0][0]]), statistics.median(cpu[cases[0][0]])
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        yard_wall, yard_cpu = statistics.median(wall[YARDSTICK]), statistics.median(cpu[YARDSTICK])
        lines = [
            f"python {platform.python_version()}, {os.cpu_count()} cores, load average {load}; median of {RUNS} runs",
            f"{'command':<52} {'wall s':>7} {'cpu s':>7} {'cpu over bare':>14} {'wall/pyspiel':>13} "
            f"{'cpu/pyspiel':>12}  target",
        ]
        for name, _, target in cases:
            w, c = statistics.median(wall[name]), statistics.median(cpu[name])
            over = "" if name == cases[0][0] else f"+{c - bare_cpu:.3f}"
            lines.append(
                f"{name:<52} {w:7.3f} {c:7.3f} {over:>14} {w / yard_wall:13.2f} {c / yard_cpu:12.2f}  {target}".rstrip()
            )
        lines.append(f"(bare python: wall {bare_wall:.3f} s, cpu {bare_cpu:.3f} s)")
        print("\n".join(lines))
        if "--write" in sys.argv:
            write(lines)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def write(lines: list[str]) -> None:
    """bench/RESULTS-startup.md: these figures; the notes below them are kept as they are."""
    path = BENCH / "RESULTS-startup.md"
    notes = path.read_text().split("\n```\n", 2)[2] if path.exists() else ""
    head = """# CLI start-up (issues 22 and 50)

Command: `.venv/bin/python bench/bench_startup.py --write` (each command a fresh process, bytecode caches
written; commands alternate run by run, so load on the shared machine hits them alike)
"""
    path.write_text(head + "\n```\n" + "\n".join(lines) + "\n```\n" + notes)


if __name__ == "__main__":
    main()
