"""Scale-out benchmark (issue 8). Run: .venv/bin/python bench/bench_scaleout.py [--write]

1. games/s, `mcts:sims=1000` vs `optimal` on tic-tac-toe, every game scored and committed to the
   store: local backend with 1 and 2 worker processes, and the ray backend on this machine (a local
   Ray instance; its start-up is reported apart from the steady rate).
2. harness throughput with model players: `llm` on a loopback OpenAI-compatible server that answers
   after a fixed delay, 64 games in flight through Ray (and through the local backend, for scale).
   The ceiling is 64 / delay calls per second.

`--write` also writes the figures and the commands to bench/RESULTS-scaleout.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from plylab.harness.backends import ExecOptions, backend_session
from plylab.harness.plan import single_plan
from plylab.harness.runner import run_plan

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "RESULTS-scaleout.md"


REPEAT = 3


def timed(
    backend: str, options: ExecOptions, store: Path, spec: str, opponent: str, games: int, warm: int
) -> tuple[float, float, float]:
    """(start-up s, steady games/s, driver CPU ms per game): start-up is joining/starting the backend
    plus a warm-up run (worker processes start and import the game and model stacks once per run);
    then REPEAT timed runs of fresh games, of which the fastest counts (the machine is shared). The
    driver is the one store writer: its CPU per game bounds scale-out."""
    t0 = time.perf_counter()
    best = (0.0, 0.0)
    with backend_session(backend, options):
        warmup = single_plan("tic_tac_toe", "standard", spec, opponent, warm, 1, "warm-up")
        run_plan(warmup, store, backend=backend, options=options, progress=False)
        start = time.perf_counter() - t0
        for r in range(REPEAT):
            t1, c1 = time.perf_counter(), time.process_time()
            plan = single_plan("tic_tac_toe", "standard", spec, opponent, games, 100 + r, f"timed{r}")
            summary = run_plan(plan, store, backend=backend, options=options, progress=False)
            t2, c2 = time.perf_counter(), time.process_time()
            assert summary.played == games, summary.line()
            best = max(best, (games / (t2 - t1), 1000 * (c2 - c1) / games))
    return start, best[0], best[1]


def classic(backend: str, workers: int, games: int, folder: Path) -> dict[str, float]:
    options = ExecOptions(workers=workers, run_dir=str(folder))
    store = folder / f"{backend}-{workers}.sqlite"
    start, rate, cpu = timed(backend, options, store, "mcts:sims=1000", "optimal", games, warm=32)
    return {"games/s": rate, "start-up s": start, "driver ms/game": cpu}


def fake_server(delay: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "fake_openai_server.py"), "--delay", str(delay)],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline() if proc.stdout else ""
    if not line.startswith("PORT "):
        proc.kill()
        raise RuntimeError(f"the fake server did not start: {line!r}")
    return proc, f"http://127.0.0.1:{line.split()[1]}/v1"


def model_games(backend: str, url: str, games: int, concurrency: int, folder: Path) -> dict[str, float]:
    spec = f"llm:model=openai-api/fake/fake,base_url={url},max_connections={concurrency}"
    options = ExecOptions(concurrency=concurrency, workers=0, run_dir=str(folder))
    store = folder / f"llm-{backend}.sqlite"
    start, rate, cpu = timed(backend, options, store, spec, "random", games, warm=concurrency)
    with sqlite3.connect(store) as conn:
        calls = conn.execute(
            "SELECT SUM(m.calls) FROM moves m JOIN games g ON g.id = m.game_id "
            "JOIN runs r ON r.id = g.run_id WHERE r.name = 'timed0'"
        ).fetchone()[0]
    return {
        "games/s": rate,
        "calls/s": rate * calls / games,
        "calls": calls,
        "start-up s": start,
        "driver ms/game": cpu,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=int(os.environ.get("BENCH_GAMES", "1000")))
    parser.add_argument("--llm-games", type=int, default=512)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--delay", type=float, default=0.1, help="seconds the fake server waits per call")
    parser.add_argument("--only", choices=["classic", "llm"], help="run one part")
    parser.add_argument("--write", action="store_true", help="write bench/RESULTS-scaleout.md")
    args = parser.parse_args()
    os.environ.setdefault("FAKE_API_KEY", "sk-bench")
    load = os.getloadavg()
    rows: list[tuple[str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="so-") as tmp:
        folder = Path(tmp)
        for backend, workers in (("local", 1), ("local", 2), ("ray", 0)) if args.only != "llm" else ():
            r = classic(backend, workers, args.games, folder)
            label = (
                f"{backend}, {workers} worker process{'es' if workers > 1 else ''}"
                if backend == "local"
                else "ray, local instance (all CPUs)"
            )
            rows.append((label, r))
            print(
                f"{label:<36} {r['games/s']:8.1f} games/s   driver {r['driver ms/game']:.2f} ms CPU/game   "
                f"(start-up {r['start-up s']:.1f}s)",
                flush=True,
            )
        server, url = fake_server(args.delay)
        llm_rows: list[tuple[str, dict[str, float]]] = []
        try:
            for backend in ("ray", "local") if args.only != "classic" else ():
                r = model_games(backend, url, args.llm_games, args.concurrency, folder)
                llm_rows.append((backend, r))
                print(
                    f"llm on fake server, {backend:<5} c={args.concurrency}: {r['games/s']:7.1f} games/s "
                    f"{r['calls/s']:7.1f} calls/s (ceiling {args.concurrency / args.delay:.0f})   "
                    f"driver {r['driver ms/game']:.1f} ms CPU/game",
                    flush=True,
                )
        finally:
            server.kill()
    if args.write:
        write(args, rows, llm_rows, load)


def write(args: argparse.Namespace, rows: list, llm_rows: list, load: tuple[float, float, float]) -> None:
    cpus = os.cpu_count()
    lines = [
        "# Scale-out: local worker processes and Ray",
        "",
        f"Command: `.venv/bin/python bench/bench_scaleout.py --games {args.games} --llm-games {args.llm_games} "
        f"--concurrency {args.concurrency} --delay {args.delay} --write`",
        f"Machine: {cpus} CPUs, Python {platform.python_version()}, load average "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the start (shared with other work: compare rows "
        "of one run as ratios).",
        "",
        f"## mcts:sims=1000 vs optimal, tic-tac-toe, {args.games} games (scored, stored)",
        "",
        "Start-up: joining or starting the backend plus a 32-game warm-up run (worker processes start and",
        f"load the game stack once); games/s: the fastest of {REPEAT} timed runs of fresh games after it.",
        "",
        "| backend | games/s | driver CPU ms/game | start-up s |",
        "|---|---:|---:|---:|",
        *[
            f"| {label} | {r['games/s']:.1f} | {r['driver ms/game']:.2f} | {r['start-up s']:.1f} |"
            for label, r in rows
        ],
        "",
        "Driver CPU per game: what the one process that writes the store spends per game (all the work",
        "for 1 local worker; receiving and saving for the others). Its inverse bounds a cluster's rate.",
        "",
        "Same command with `--backend ray` gives the same games, move for move, as `--backend local`",
        "(tests/harness/test_ray.py). Start-up is Ray's (`ray.init`) and is paid once per `plylab run`.",
        "",
        f"## Harness throughput with a model: llm vs random, {args.llm_games} games, "
        f"{args.concurrency} in flight, server delay {args.delay}s",
        "",
        f"Loopback OpenAI-compatible server (`bench/fake_openai_server.py --delay {args.delay}`), model "
        f"`openai-api/fake/fake` with `max_connections={args.concurrency}`; ceiling "
        f"{args.concurrency / args.delay:.0f} calls/s.",
        "",
        "Start-up includes a warm-up run of as many games as are in flight (each worker process imports",
        f"the model stack, inspect_ai, once); the fastest of {REPEAT} timed runs counts.",
        "",
        "| backend | games/s | calls/s | of ceiling | driver CPU ms/game | start-up s |",
        "|---|---:|---:|---:|---:|---:|",
        *[
            f"| {b} | {r['games/s']:.1f} | {r['calls/s']:.1f} | {r['calls/s'] / (args.concurrency / args.delay):.0%} "
            f"| {r['driver ms/game']:.1f} | {r['start-up s']:.1f} |"
            for b, r in llm_rows
        ],
        "",
        "## Reading",
        "",
        "- On 2 shared CPUs neither backend reaches the model ceiling: each call costs a few ms of CPU in",
        "  the client stack (inspect_ai, the OpenAI SDK, httpx; about 5 ms per call under cProfile), and",
        "  that, not the harness, is the bound here. What Ray changes is where that CPU is spent: the",
        "  driver (the one store writer) spends "
        + ", ".join(f"{r['driver ms/game']:.1f} ms per game ({b})" for b, r in llm_rows)
        + ", so with Ray the writer could keep up with about "
        + ", ".join(f"{1000 / r['driver ms/game']:.0f} games/s ({b})" for b, r in llm_rows if b == "ray")
        + " as nodes are added.",
        "- The ray backend adds two small actor calls per model call (the cluster-wide cap); the",
        "  response cache is read and written in each worker directly when it runs on the driver's node.",
        "",
    ]
    RESULTS.write_text("\n".join(lines))
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
