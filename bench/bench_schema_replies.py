"""The same local-model calls asked again, written (`structured.py`) and under the whole grammar.

    python bench/bench_schema_replies.py STORE          # every call the store's responses hold
    python bench/bench_schema_replies.py STORE --calls 40

Reads each call's messages and schema from the store's response cache (a `plylab learn` store
holds REAPER's planner, executor, reflector and extractor calls) and asks the local model again,
in the stored order, once with `PLYLAB_LOCAL_CHOICE=labels` (the default) and once with
`grammar`, each in its own process (its own kept prompt blocks), one thread, temperature 0.
Prints, per way: calls, seconds in prompt evaluation and in the reply, wall, output tokens, the
replies that ran to their token limit, and how many replies the two ways share.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_TOKENS = 256  # REAPER's default budget for a component's reply


def requests(store: Path, calls: int | None) -> list[tuple[list[dict[str, str]], dict | None]]:
    from plylab.harness.text_homes import text_at_home
    from plylab.models.cache import stored_text

    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    rows = conn.execute("SELECT request FROM responses ORDER BY rowid").fetchall()
    out = []
    for (raw,) in rows[:calls]:
        request = json.loads(raw)
        messages = []
        for m in request["messages"]:
            content = m["content"]
            if isinstance(content, dict):
                content = stored_text(conn, content["$text"], text_at_home)
            messages.append({"role": m["role"], "content": content})
        out.append((messages, request.get("schema")))
    return out


def ask_all(store: Path, calls: int | None, way: str, out: Path) -> None:
    """One process: every call, one way; the figures and replies to `out` (JSON)."""
    from plylab.models.local import LocalEngine

    engine = LocalEngine.shared()
    engine.choice, engine.fixed_threads = way, 1
    figures = {"prompt": 0.0, "reply": 0.0, "wall": 0.0, "tokens": 0, "at_limit": 0}
    replies = []
    for messages, schema in requests(store, calls):
        start = time.perf_counter()
        reply = engine.chat(messages, temperature=0, max_tokens=MAX_TOKENS, seed=0, schema=schema)
        figures["wall"] += time.perf_counter() - start
        figures["prompt"] += engine.last.prompt
        figures["reply"] += engine.last.reply
        figures["tokens"] += reply["usage"]["completion_tokens"]
        figures["at_limit"] += reply["choices"][0]["finish_reason"] == "length"
        replies.append(reply["choices"][0]["message"]["content"])
    out.write_text(json.dumps({"figures": figures, "replies": replies}))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("store", type=Path)
    parser.add_argument("--calls", type=int, default=None)
    parser.add_argument("--way", choices=["labels", "grammar"], help=argparse.SUPPRESS)
    parser.add_argument("--to", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.way:
        ask_all(args.store, args.calls, args.way, args.to)
        return
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for way in ("labels", "grammar"):
            to = Path(tmp) / f"{way}.json"
            cmd = [sys.executable, __file__, str(args.store), "--way", way, "--to", str(to)]
            if args.calls:
                cmd += ["--calls", str(args.calls)]
            subprocess.run(cmd, check=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
            results[way] = json.loads(to.read_text())
    same = sum(
        a == b for a, b in zip(results["labels"]["replies"], results["grammar"]["replies"], strict=True)
    )
    n = len(results["labels"]["replies"])
    print(f"{n} calls from {args.store}, one thread, temperature 0, max_tokens {MAX_TOKENS}\n")
    print("| way | prompt s | reply s | wall s | output tokens | at the token limit |")
    print("|---|---:|---:|---:|---:|---:|")
    for way, r in results.items():
        f = r["figures"]
        print(
            f"| {way} | {f['prompt']:.1f} | {f['reply']:.1f} | {f['wall']:.1f} | {f['tokens']} | {f['at_limit']} |"
        )
    ratio = results["grammar"]["figures"]["wall"] / max(results["labels"]["figures"]["wall"], 1e-9)
    print(f"\nthe same reply both ways: {same} of {n}; grammar / written wall: {ratio:.2f}x")


if __name__ == "__main__":
    main()
