"""Model door benchmark: the local model's seconds per move, and the door's overhead on a wire.

    python bench/bench_models.py                       # figures, written to bench/RESULTS-models.md
    python bench/bench_models.py --skip-local --out -  # the wire part only, printed
    python bench/bench_models.py --delays 0.5 --levels 64   # one level, one delay

1. Local model: Gemma 3 270M in-process (llama.cpp), `output=enum` moves of the `llm` player on
   positions from real games of tic-tac-toe, Nim and Connect Four; wall and CPU seconds per move.
2. Door overhead: `Model.generate` (inspect provider, retries, caps, response-cache write) against a
   loopback OpenAI-compatible server (`bench/fake_openai_server.py`, its own process) that answers
   after a fixed delay (1 s and 2 s by default). Calls per second at concurrency 1, 8 and 64
   against the ideal concurrency / delay; the overhead at 64 must stay under 10%.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "RESULTS-models.md"
sys.path.insert(0, str(ROOT))


# -- 1. the local model ------------------------------------------------------------------------


def bench_local(moves_per_game: int, seed: int) -> list[dict]:
    from plylab.games import get_game
    from plylab.models import get_model
    from plylab.players import Turn, make_player

    start = time.perf_counter()
    get_model("local")
    load = time.perf_counter() - start
    rows = []
    for name in ("tic_tac_toe", "nim", "connect_four"):
        game = get_game(name)
        f = game.formulation("standard")
        llm = make_player("llm:model=local,output=enum", game, seed)
        rival = make_player("random", game, seed + 1)
        state, walls, cpus, tokens_in, tokens_out, failures = game.new_state(), [], [], 0, 0, 0
        ply = 0
        while len(walls) < moves_per_game:
            if state.is_terminal():
                state, ply = game.new_state(), 0
            seat = state.current_player()
            turn = Turn(game, f, state.clone(), seat, ply, f"bench-{name}")
            if seat == 0:
                w, c = time.perf_counter(), time.process_time()
                d = asyncio.run(llm.act(turn))
                walls.append(time.perf_counter() - w)
                cpus.append(time.process_time() - c)
                tokens_in += d.attempts[0].input_tokens
                tokens_out += d.attempts[0].output_tokens
                failures += d.failure is not None
            else:
                d = asyncio.run(rival.act(turn))
            if d.action is None:
                state, ply = game.new_state(), 0
                continue
            state.apply_action(d.action)
            ply += 1
        rows.append(
            {
                "game": name,
                "moves": len(walls),
                "wall": statistics.mean(walls),
                "wall_max": max(walls),
                "cpu": statistics.mean(cpus),
                "in": tokens_in / len(walls),
                "out": tokens_out / len(walls),
                "failures": failures,
                "load": load,
            }
        )
    return rows


# -- 2. the door's overhead on a wire ----------------------------------------------------------


def start_server(delay: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "fake_openai_server.py"), "--delay", str(delay)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    port = int(proc.stdout.readline().split()[1])
    return proc, f"http://127.0.0.1:{port}/v1"


async def _wave(model, cache, concurrency: int, rounds: int, tag: str) -> float:
    """`concurrency` workers, each making `rounds` calls back to back; returns calls per second."""

    async def worker(w: int) -> None:
        for r in range(rounds):
            messages = [{"role": "user", "content": f"{tag} worker {w} call {r}"}]
            await model.generate(messages, cache=cache, cache_key=f"{tag}/{w}/{r}")

    start = time.perf_counter()
    await asyncio.gather(*(worker(w) for w in range(concurrency)))
    return concurrency * rounds / (time.perf_counter() - start)


async def _steady(model, cache, concurrency: int, delay: float, window: float, tag: str) -> tuple[float, int]:
    """(calls per second in steady state, calls made): `concurrency` workers calling back to back.

    Workers start spread over one delay (the games of a run are not in lockstep: their moves reach
    the model at different times); completions are counted in a window that opens after two
    delays, once every worker is busy, and closes before any stops.
    """
    start = time.perf_counter()
    opens, closes = start + 2 * delay, start + 2 * delay + window
    done: list[float] = []

    async def worker(w: int) -> None:
        await asyncio.sleep(w * delay / concurrency)
        r = 0
        while time.perf_counter() < closes:
            messages = [{"role": "user", "content": f"{tag} worker {w} call {r}"}]
            await model.generate(messages, cache=cache, cache_key=f"{tag}/{w}/{r}")
            done.append(time.perf_counter())
            r += 1

    await asyncio.gather(*(worker(w) for w in range(concurrency)))
    return sum(opens <= t < closes for t in done) / window, len(done)


def bench_wire(delay: float, levels: list[int], window: float) -> list[dict]:
    from plylab.models import ResponseCache, get_model

    os.environ.setdefault("BENCH_API_KEY", "bench-key")
    proc, url = start_server(delay)
    rows = []
    try:
        model = get_model("openai-api/bench/fake", base_url=url, max_connections=max(levels))
        with tempfile.TemporaryDirectory() as tmp:
            cache = ResponseCache.open(Path(tmp) / "bench.sqlite")
            asyncio.run(_wave(model, cache, 4, 2, "warm-up"))  # first-call set-up (model table, pool)
            for c in levels:
                cpu = time.process_time()
                rate, calls = asyncio.run(_steady(model, cache, c, delay, window, f"c{c}"))
                ideal = c / delay
                rows.append(
                    {
                        "concurrency": c,
                        "rate": rate,
                        "ideal": ideal,
                        "overhead": 1 - rate / ideal,
                        "cpu_ms": 1000 * (time.process_time() - cpu) / calls,
                        "calls": calls,
                    }
                )
            cache.close()
    finally:
        proc.terminate()
        proc.wait(10)
    return rows


# -- report ------------------------------------------------------------------------------------


def report(command: str, local: list[dict] | None, wire: dict[float, list[dict]], window: float) -> str:
    lines = ["# Model door benchmark", "", f"Command: `{command}`", ""]
    lines += [
        (
            f"Machine: {os.cpu_count()} CPUs visible, load average at the end "
            f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} (other work shares these cores)."
        ),
        "",
    ]
    if local:
        lines += [
            "## Local model: seconds per move",
            "",
            (
                f"Gemma 3 270M Q4_K_M, llama.cpp in-process, `llm:model=local,output=enum` (constrained to the legal "
                f"moves), temperature 0, every call from an empty KV cache; a random opponent supplies positions. "
                f"Model load: {local[0]['load']:.1f} s."
            ),
            "",
            "| game | moves | wall s/move (mean) | wall s/move (max) | CPU s/move | prompt tokens | output tokens | failures |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in local:
            lines.append(
                f"| {r['game']} | {r['moves']} | {r['wall']:.2f} | {r['wall_max']:.2f} | {r['cpu']:.2f} | "
                f"{r['in']:.0f} | {r['out']:.1f} | {r['failures']} |"
            )
        lines.append("")
    for delay, rows in wire.items():
        lines += [
            f"## Door overhead against a loopback server answering after {delay:g} s",
            "",
            (
                "`Model.generate` through inspect's `openai-api` provider to `bench/fake_openai_server.py` (own "
                f"process) answering after {delay:g} s. Each of `concurrency` workers (a game) calls back to back, "
                "every reply written to the response cache in SQLite; workers start spread over one delay and calls "
                f"are counted over a {window:g} s window once all are busy. Ideal = concurrency / delay. Client CPU "
                "per call is the load-independent figure: the door's ceiling is about 1000 / (CPU ms) calls/s per core."
            ),
            "",
            "| concurrency | calls/s | ideal calls/s | overhead | client CPU ms/call | calls |",
            "|---:|---:|---:|---:|---:|---:|",
        ]
        for r in rows:
            lines.append(
                f"| {r['concurrency']} | {r['rate']:.2f} | {r['ideal']:.2f} | {100 * r['overhead']:.1f}% | "
                f"{r['cpu_ms']:.1f} | {r['calls']} |"
            )
        top = rows[-1]
        verdict = "meets" if top["overhead"] < 0.10 else "MISSES"
        need = top["concurrency"] / delay * top["cpu_ms"] / 1000
        lines += [
            "",
            (
                f"Overhead at concurrency {top['concurrency']}: {100 * top['overhead']:.1f}% ({verdict} the < 10% bound). "
                f"At this rate of calls the client needs {need:.2f} of a core; when the process gets less (see the "
                "load average), calls queue for the CPU and the overhead grows with it."
            ),
            "",
        ]
    return "\n".join(lines)


# -- 3. making a reply safe to store ------------------------------------------------------------

SAFE_SECTION = "## Making a reply safe to store"


def bench_sanitize(rounds: int = 200) -> str:
    """Microseconds to build a `Reply` (surrogates replaced, counts range-checked, keys scrubbed)."""
    os.environ.setdefault("BENCH_API_KEY", "sk-bench-0123456789abcdef")
    from plylab.models import Reply

    words = "the knight takes the pawn because the centre matters; ANSWER: e4\n"
    rows = []
    for size in (1_000, 100_000):
        clean = (words * (size // len(words) + 1))[:size]
        hostile = clean[: size // 2] + "\ud800 Bearer sk-bench-0123456789abcdef " + clean[size // 2 :]
        for label, text in (("clean", clean), ("hostile", hostile)):
            usage = {"input_tokens": 2**70 if label == "hostile" else 300, "output_tokens": 40}
            start = time.perf_counter()
            for _ in range(rounds):
                Reply(text=text, reasoning=text, usage=usage)
            us = (time.perf_counter() - start) / rounds * 1e6
            rows.append(f"| {size:,} | {label} | {us:,.0f} |")
    return "\n".join(
        [
            SAFE_SECTION,
            "",
            "Every reply (text and reasoning of the size shown) is checked for lone surrogates, its usage "
            "range-checked and its strings scrubbed of the credentials in use, once when it arrives and once "
            "when read back from the response cache. Hostile: one lone surrogate, a quoted key and a usage count "
            "of 2^70.",
            "",
            "| characters (text and reasoning each) | reply | µs per reply |",
            "|---:|---|---:|",
            *rows,
            "",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--delays", default="1,2", help="server delays in seconds, one table each (default 1,2)"
    )
    parser.add_argument("--levels", default="1,8,64", help="concurrency levels (default 1,8,64)")
    parser.add_argument(
        "--window", type=float, default=10.0, help="seconds of steady state counted (default 10)"
    )
    parser.add_argument("--moves", type=int, default=8, help="local-model moves per game (default 8)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-local", action="store_true", help="the wire part only")
    parser.add_argument("--out", default=str(RESULTS), help="markdown file for the figures; '-' prints only")
    parser.add_argument(
        "--sanitize", action="store_true", help="only the reply-safety cost (its own section)"
    )
    args = parser.parse_args(argv)
    if args.sanitize:
        command = "python bench/bench_models.py " + shlex.join(argv if argv is not None else sys.argv[1:])
        section = bench_sanitize() + f"\nCommand: `{command.strip()}`\n"
        print(section)
        if args.out != "-":
            old = Path(args.out).read_text() if Path(args.out).exists() else ""
            kept = old.split(SAFE_SECTION)[0].rstrip() if SAFE_SECTION in old else old.rstrip()
            Path(args.out).write_text(f"{kept}\n\n{section}")
        return
    levels = [int(x) for x in args.levels.split(",")]
    local = None if args.skip_local else bench_local(args.moves, args.seed)
    wire = {d: bench_wire(d, levels, args.window) for d in (float(x) for x in args.delays.split(","))}
    command = "python bench/bench_models.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    text = report(command.strip(), local, wire, args.window)
    print(text)
    if args.out != "-":
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
