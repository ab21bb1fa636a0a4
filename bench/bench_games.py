"""Generic exact oracles (issue 14). Run: .venv/bin/python bench/bench_games.py [--write]

1. For every listed game and a few generated instances with an exact oracle: seconds to build its
   table from scratch (an empty PLYLAB_CACHE), positions in the table, bytes on disk, and seconds
   to load it back from the disk cache.
2. Seconds per random-vs-random game with scoring on and `--score off` (Connect Four: the solver
   dominates; a generic table game: one lookup per move).
Times are CPU seconds of this process (time.process_time), so a shared machine's load does not
inflate them. With --write the figures also go to bench/RESULTS-games.md with the command and machine.
"""

from __future__ import annotations

import asyncio
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

os.environ["PLYLAB_CACHE"] = tempfile.mkdtemp(prefix="plylab-bench-games-")  # every build from scratch

from plylab.games import GAMES, get_game  # noqa: E402  (after PLYLAB_CACHE is set)
from plylab.harness.plan import GameJob, Matchup  # noqa: E402
from plylab.harness.session import play_game  # noqa: E402
from plylab.oracles.generic import GenericOracle, cache_path  # noqa: E402
from plylab.oracles.minimax import cache_dir  # noqa: E402

INSTANCES = [
    "nim:pile_sizes=2;4;6",
    "nim:pile_sizes=1;2;3;4;5",
    "mnk:m=3,n=3,k=3",
    "mnk:m=3,n=4,k=3",
    "hex:board_size=3",
    "connect_four:rows=4,columns=4",
    "breakthrough:rows=4,columns=3",
    "clobber:rows=3,columns=4",
    "dots_and_boxes:num_rows=2,num_cols=2,utility_margin=true",
]


def newest_file(before: set[Path]) -> Path | None:
    new = set(cache_dir().glob("*.json")) - before
    return max(new, key=lambda p: p.stat().st_mtime) if new else None


def oracle_rows() -> list[tuple[str, str, float, int, int, float]]:
    rows = []
    for name in [n for n in GAMES.names() if GAMES.get(n).has_oracle] + INSTANCES:
        game = get_game(name)
        if not game.has_oracle:
            continue
        before = set(cache_dir().glob("*.json"))
        t0 = time.process_time()
        oracle = game.oracle()
        build = time.process_time() - t0
        kind = type(oracle).__name__
        positions = len(getattr(oracle, "values", {})) if kind != "ConnectFourOracle" else 0
        path = newest_file(before)
        size = path.stat().st_size if path is not None else 0
        load = 0.0
        if isinstance(oracle, GenericOracle):
            t0 = time.process_time()
            GenericOracle.load_or_build(game.engine, game.spec)
            load = time.process_time() - t0
            assert cache_path(game.spec).exists()
        rows.append((game.spec, kind, build, positions, size, load))
        print(
            f"{game.spec:<58} {kind:<18} build {build:8.3f} s  {positions:>9,} positions  "
            f"{size / 1e6:7.2f} MB  load {load:6.3f} s",
            flush=True,
        )
    return rows


def per_game(game: str, score: bool, n: int) -> float:
    t0 = time.process_time()
    for i in range(n):
        job = GameJob(Matchup(game, "standard", "random", "random", score), i, n, 11)
        asyncio.run(play_game(job))
    return (time.process_time() - t0) / n


def main() -> None:
    print("== oracle build time and size (from an empty cache)")
    rows = oracle_rows()
    print("== seconds per random-vs-random game, scoring on vs --score off")
    timing = []
    for game, n in (("connect_four", 10), ("mnk:m=3,n=4,k=3", 50), ("hex:board_size=5", 50)):
        on = per_game(game, True, n) if get_game(game).has_oracle else None
        off = per_game(game, False, n)
        timing.append((game, n, on, off))
        print(
            f"{game:<24} n={n:<3} on {'-' if on is None else f'{on:.4f}'} s/game  off {off:.4f} s/game",
            flush=True,
        )
    if "--write" in sys.argv:
        write(rows, timing)


def write(rows, timing) -> None:
    load = os.getloadavg()
    lines = [
        "# Games: generic exact oracles",
        "",
        "Command: `.venv/bin/python bench/bench_games.py --write` (every table built from an empty `PLYLAB_CACHE`;"
        " CPU seconds of the process, `time.process_time`)  ",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores shared with other work "
        f"(load average {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} at the end), Python {platform.python_version()}.",
        "",
        "## Oracle build time and size per game that has one",
        "",
        "Dedicated tables (MinimaxTable) for tic-tac-toe and Nim, the compiled solver for Connect Four (nothing to"
        " build: positions are solved on demand), the generic minimax table (GenericOracle) for every other game and"
        " instance. Load = reading the cached table back from disk.",
        "",
        "| game | oracle | build (s) | positions | on disk (MB) | load (s) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for spec, kind, build, positions, size, load_s in rows:
        if kind == "ConnectFourOracle":  # a search with an opening book: no table to count or load
            lines.append(f"| `{spec}` | {kind} | {build:.3f} (solver start) | solved on demand | - | - |")
            continue
        loaded = f"{load_s:.3f}" if kind == "GenericOracle" else "-"
        lines.append(f"| `{spec}` | {kind} | {build:.3f} | {positions:,} | {size / 1e6:.2f} | {loaded} |")
    lines += [
        "",
        "## Seconds per random-vs-random game: scoring on vs `--score off`",
        "",
        "| game | games | scoring on (s/game) | --score off (s/game) |",
        "|---|---:|---:|---:|",
    ]
    for game, n, on, off in timing:
        lines.append(f"| `{game}` | {n} | {'no oracle' if on is None else f'{on:.4f}'} | {off:.4f} |")
    out = Path(__file__).resolve().parent / "RESULTS-games.md"
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
