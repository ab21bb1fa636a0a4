"""Backgammon's grading cost per decision (oracles.gnubg) against raw gnubg on the same positions.

Decisions are drawn from seeded random games. `graded`: plylab's grader on each decision, cold cache
(OpenSpiel's plays expanded, each position after a play turned into gnubg's board, evaluated, the
grade built); `raw`: the same positions sent straight to the same gnubg process (the engine's own
work, nothing of plylab's); `regrade`: the grader again, every position cached. Both at the grading
level (0-ply, noise off) and at world class (2-ply).

Usage: python bench/bench_gnubg.py [--games 4] [--out bench/RESULTS-gnubg.md]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

import pyspiel

from plylab.games import get_game
from plylab.oracles.gnubg import Board, GnubgOracle, GnubgProcess, board_of, gnubg_path


def decisions(games: int, seed: int = 0) -> list[pyspiel.State]:
    rng, out = random.Random(seed), []
    for _ in range(games):
        state = get_game("backgammon").engine.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            out.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--two-ply", type=int, default=40, help="decisions timed at 2 plies")
    ap.add_argument("--out", default="bench/RESULTS-gnubg.md")
    args = ap.parse_args()
    path = gnubg_path()
    if path is None:
        raise SystemExit("gnubg is not installed (make engines): nothing to measure")
    states = decisions(args.games)
    rows = []
    for plies, sample in ((0, states), (2, states[: args.two_ply])):
        process = GnubgProcess(path, timeout=600)
        process.evaluate([board_of(sample[0], 0)], plies)  # started and warm before any timing
        oracle = GnubgOracle(process, plies)
        t = time.perf_counter()
        for s in sample:
            oracle.grade(s, s.legal_actions()[0])
        graded = time.perf_counter() - t
        t = time.perf_counter()
        for s in sample:
            oracle.grade(s, s.legal_actions()[0])
        regrade = time.perf_counter() - t
        # the positions the grader evaluated, once each, straight to a fresh process
        boards: list[Board] = [b for (b, _) in oracle._cache]
        raw_process = GnubgProcess(path, timeout=600)
        raw_process.evaluate([boards[0]], plies)
        t = time.perf_counter()
        for i in range(0, len(boards), 32):
            raw_process.evaluate(boards[i : i + 32], plies)
        raw = time.perf_counter() - t
        raw_process.close()
        oracle.close()
        n = len(sample)
        rows.append((plies, n, len(boards), graded / n, raw / n, regrade / n))
    load = os.getloadavg()[0]
    lines = [
        "# Backgammon graded by gnubg: cost per decision",
        "",
        f"Command: `python bench/bench_gnubg.py --games {args.games}`",
        f"Machine: {os.cpu_count()} CPUs, load average {load:.1f} at the end (shared). gnubg 1.07 (Debian), one process.",
        "Decisions from seeded random games; `raw`: the same positions straight to gnubg, batches of 32.",
        "",
        "| plies | decisions | positions | graded ms/decision | raw gnubg ms/decision | ratio | regrade (cached) ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for plies, n, pos, g, r, rg in rows:
        lines.append(
            f"| {plies} | {n} | {pos} | {g * 1e3:.1f} | {r * 1e3:.1f} | {g / r:.2f} | {rg * 1e3:.1f} |"
        )
    lines += [
        "",
        "Graded: OpenSpiel's plays expanded (a double's second half too), boards built, the grade made;"
        " a cached position is not sent again.",
    ]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
