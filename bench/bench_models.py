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


GAMES = ("tic_tac_toe", "nim", "connect_four")
KEYS = ("wall", "cpu", "raw", "cold", "setup", "prompt", "reply", "store", "door", "in", "reused", "out")


def bench_local(moves_per_game: int, seed: int, games: tuple[str, ...] = GAMES) -> list[dict]:
    """Per game: plylab's move (the `llm` player through the door and the response cache) beside
    raw llama.cpp making the same llama.cpp calls in the same process, just after."""
    return asyncio.run(_bench_local(moves_per_game, seed, games))


async def _bench_local(moves_per_game: int, seed: int, games: tuple[str, ...]) -> list[dict]:
    from plylab.games import get_game
    from plylab.models import ResponseCache, get_model
    from plylab.models.decoding import BLOCK
    from plylab.models.local import LocalEngine
    from plylab.players import Turn, make_player
    from plylab.players.base import RunContext

    start = time.perf_counter()
    get_model("local")
    engine = await asyncio.to_thread(LocalEngine.shared)
    load = time.perf_counter() - start
    decoder = engine.decoder
    decoder.record = True
    rows = []
    tmp = tempfile.TemporaryDirectory()
    cache = ResponseCache.open(Path(tmp.name) / "bench.sqlite")
    store = [0.0]
    for name in ("get", "put"):  # time the store's part of each call
        method = getattr(cache, name)

        def timed(*args, _method=method):
            t = time.perf_counter()
            try:
                return _method(*args)
            finally:
                store[0] += time.perf_counter() - t

        setattr(cache, name, timed)
    for name in games:
        game = get_game(name)
        f = game.formulation("standard")
        llm = make_player("llm:model=local,output=enum", game, seed, RunContext(cache=cache))
        rival = make_player("random", game, seed + 1)
        state, ply, run = game.new_state(), 0, 0
        m: dict[str, list[float]] = {k: [] for k in KEYS}
        failures = 0
        while len(m["wall"]) < moves_per_game:
            if state.is_terminal():
                state, ply, run = game.new_state(), 0, run + 1
            seat = state.current_player()
            turn = Turn(game, f, state.clone(), seat, ply, f"bench-{name}-{run}")
            if seat == 0:
                store[0] = 0.0
                w, c = time.perf_counter(), time.process_time()
                d = await llm.act(turn)
                wall, cpu = time.perf_counter() - w, time.process_time() - c
                t = engine.last
                engine_s = t.setup + t.prompt + t.reply
                # raw llama.cpp, same process, just after: the whole prompt cold in 512-token
                # batches then the same reply calls; then (untimed) the blocks again, so that the
                # same work (kept blocks, the rest, the reply) is replayed on the state plylab had
                cold = decoder.replay(decoder.prompt_ops(t.tokens, decoder.n_batch) + t.ops[t.prompt_ops :])
                decoder.replay(decoder.prompt_ops(t.tokens, BLOCK))
                raw = decoder.replay(t.ops)
                for k, v in (
                    ("wall", wall),
                    ("cpu", cpu),
                    ("raw", raw),
                    ("cold", cold),
                    ("setup", t.setup),
                    ("prompt", t.prompt),
                    ("reply", t.reply),
                    ("store", store[0]),
                    ("door", wall - engine_s - store[0]),
                    ("in", d.attempts[0].input_tokens),
                    ("reused", t.reused_tokens),
                    ("out", d.attempts[0].output_tokens),
                ):
                    m[k].append(v)
                failures += d.failure is not None
            else:
                d = await rival.act(turn)
            if d.action is None:
                state, ply, run = game.new_state(), 0, run + 1
                continue
            state.apply_action(d.action)
            ply += 1
        ratios = [w / r for w, r in zip(m["wall"], m["raw"], strict=True)]
        row = {k: statistics.mean(v) for k, v in m.items()}
        row.update(
            game=name,
            moves=len(m["wall"]),
            wall_median=statistics.median(m["wall"]),
            raw_median=statistics.median(m["raw"]),
            cold_median=statistics.median(m["cold"]),
            ratio=statistics.median(ratios),
            failures=failures,
            load=load,
        )
        rows.append(row)
    decoder.record = False
    cache.close()
    tmp.cleanup()
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
                "Gemma 3 270M Q4_K_M, llama.cpp in-process, `llm:model=local,output=enum` (a choice among the legal "
                "moves), temperature 0, a random opponent supplying positions; each move through the door and the "
                f"response cache (SQLite). Model load: {local[0]['load']:.1f} s. **raw** is llama.cpp alone making the "
                "same llama.cpp calls (prompt blocks not kept from the previous move, the label batch or the decoded "
                "tokens) right after, in the same process; **cold** is llama.cpp evaluating the whole prompt from an "
                "empty cache in 512-token batches plus the same reply (what every move cost before prompt reuse)."
            ),
            "",
            "| game | moves | plylab wall s/move (median) | raw s/move (median) | plylab / raw (median) | cold raw s/move (median) | CPU s/move | prompt tokens (kept) | output tokens | failures |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in local:
            lines.append(
                f"| {r['game']} | {r['moves']} | {r['wall_median']:.3f} | {r['raw_median']:.3f} | {r['ratio']:.2f}x | "
                f"{r['cold_median']:.3f} | {r['cpu']:.3f} | {r['in']:.0f} ({r['reused']:.0f}) | {r['out']:.1f} | {r['failures']} |"
            )
        lines += [
            "",
            "Where plylab's time goes (mean ms per move): set-up (chat format, tokens, sampler), prompt (llama.cpp "
            "evaluating the blocks not kept), reply (the label choice: fixed text and one scoring batch), the door "
            "(inspect's provider, the player, the thread hop) and the store (response-cache look-up and write).",
            "",
            "| game | set-up | prompt | reply | door | store | total |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for r in local:
            lines.append(
                f"| {r['game']} | {1000 * r['setup']:.1f} | {1000 * r['prompt']:.1f} | {1000 * r['reply']:.1f} | "
                f"{1000 * r['door']:.1f} | {1000 * r['store']:.1f} | {1000 * r['wall']:.1f} |"
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
    parser.add_argument(
        "--games", default=",".join(GAMES), help=f"local-model games (default {','.join(GAMES)})"
    )
    parser.add_argument("--skip-wire", action="store_true", help="the local model only")
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
    local = None if args.skip_local else bench_local(args.moves, args.seed, tuple(args.games.split(",")))
    delays = [] if args.skip_wire else [float(x) for x in args.delays.split(",")]
    wire = {d: bench_wire(d, levels, args.window) for d in delays}
    command = "python bench/bench_models.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    text = report(command.strip(), local, wire, args.window)
    print(text)
    if args.out != "-":
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
