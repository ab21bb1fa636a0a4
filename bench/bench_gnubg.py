"""Backgammon's grading cost per decision (oracles.gnubg) against raw gnubg on the same positions.

Decisions are drawn from seeded random games (rolls that are not doubles, more than one legal play,
so gnubg's own hint sees the same decision). At each level, the opt-in 0-ply and the default (gnubg's
analysis level: 2-ply, move filter "large"):

- `graded`: plylab's grader on each decision, a played play drawn at random, cold cache (OpenSpiel's
  plays expanded, boards built, gnubg's filter applied, the played play taken deeper, the grade made);
- `raw evaluate`: the positions the grader evaluated, at the plies it evaluated each, straight to a
  fresh gnubg process (the engine's own work through the same embedded-Python call);
- `gnubg hint`: gnubg's own CLI analysing the same decisions at the same level (`hint`, the same
  move filter), one process for all, its start-up subtracted (a run with every command but `hint`).

`--pool-only`: decisions graded per second at the default level by pools of one and two gnubg
processes (`GnubgPool`), every decision handed at once to the pool's threads as the session hands
them, a fresh pool each (its first process warm, the second started when needed), cold cache; the
section "Graded by a pool" of `--out` is replaced with it.

Each figure is the least of `--repeats` runs (a fresh gnubg each): the machine is shared, and gnubg's
`evaluate` call itself swings from under 1 to 10 ms under load.

Usage: python bench/bench_gnubg.py [--decisions 40] [--decisions0 200] [--repeats 3] [--pool-only] [--out bench/RESULTS-gnubg.md]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import time
from collections import defaultdict
from pathlib import Path

import pyspiel

from plylab.games import get_game
from plylab.oracles.gnubg import (
    ANALYSIS,
    LEVEL_KEYS,
    Board,
    GnubgOracle,
    GnubgPool,
    GnubgProcess,
    Level,
    board_of,
    gnubg_path,
)

GAME = "backgammon:scoring_type=full_scoring"  # gnubg's cubeless money equity, as its hint prints


def decisions(count: int, seed: int = 0) -> list[pyspiel.State]:
    rng, out = random.Random(seed), list[pyspiel.State]()
    while len(out) < count:
        state = get_game(GAME).engine.new_initial_state()
        while not state.is_terminal() and len(out) < count:
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            dice = re.search(r"Dice: (\d)(\d)", str(state))
            if dice and dice.group(1) != dice.group(2) and len(state.legal_actions()) > 1:
                out.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return out


def hint_commands(level: Level, states: list[pyspiel.State], with_hint: bool) -> str:
    lines = ["set player 0 human", "set player 1 human", "set jacoby off",
             "set evaluation chequerplay evaluation cubeful off",
             f"set evaluation chequerplay evaluation plies {level.plies}",
             "set evaluation chequerplay evaluation prune on", "set evaluation chequerplay evaluation noise 0"]  # fmt: skip
    for ply, step in enumerate(level.steps):
        lines.append(
            f"set evaluation movefilter {level.plies} {ply} {step.accept} {step.extra} {step.threshold}"
        )
    lines.append("new session")
    for s in states:
        opp, me = board_of(s, s.current_player())
        simple = [me[24]] + [me[k] - opp[23 - k] for k in range(24)] + [opp[24]]
        dice = re.search(r"Dice: (\d)(\d)", str(s))
        assert dice is not None
        lines += ["set turn 1", "set board simple " + " ".join(map(str, simple)),
                  f"set dice {dice.group(1)} {dice.group(2)}"]  # fmt: skip
        if with_hint:
            lines.append("hint 1000")
    return "\n".join(lines) + "\n"


def gnubg_cli(path: str, script: str) -> float:
    t = time.perf_counter()
    subprocess.run([path, "-t", "-q"], input=script, capture_output=True, text=True, timeout=3600, check=True)
    return time.perf_counter() - t


POOL_HEADING = "## Graded by a pool"


def pool_rate(path: str, states: list[pyspiel.State], played: list[int], size: int) -> float:
    """Decisions graded per second by a fresh pool of `size` at the default level, all at once."""
    pool = GnubgPool(path, size=size, timeout=600)
    pool.evaluate([board_of(states[0], 0)], 0)  # the first process started and warm before timing
    oracle = GnubgOracle(pool, ANALYSIS)
    executor = oracle.executor
    assert executor is not None
    t = time.perf_counter()
    for future in [executor.submit(oracle.grade, s, a) for s, a in zip(states, played, strict=True)]:
        future.result()
    rate = len(states) / (time.perf_counter() - t)
    oracle.close()
    return rate


def pool_section(path: str, count: int, repeats: int) -> list[str]:
    states = decisions(count)
    rng = random.Random(1)
    played = [rng.choice(s.legal_actions()) for s in states]
    rates = {n: max(pool_rate(path, states, played, n) for _ in range(repeats)) for n in (1, 2)}
    return [
        POOL_HEADING,
        "",
        f"Command: `python bench/bench_gnubg.py --pool-only --decisions {count} --repeats {repeats}`, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end (shared). {count} decisions "
        "at the default level handed at once to the pool's threads (as the session does), cold cache, the "
        "best of the repeats: "
        f"a pool of one graded {rates[1]:.2f} decisions/s, a pool of two {rates[2]:.2f} "
        f"({rates[2] / rates[1]:.2f}x); the same grades either way (tests/oracles/test_gnubg.py).",
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--decisions", type=int, default=40, help="decisions graded at the default level")
    ap.add_argument("--decisions0", type=int, default=200, help="decisions graded at plies=0")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--pool-only", action="store_true", help="only the pool section (pools of one and two)")
    ap.add_argument("--out", default="bench/RESULTS-gnubg.md")
    args = ap.parse_args()
    path = gnubg_path()
    if path is None:
        raise SystemExit("gnubg is not installed (make engines): nothing to measure")
    if args.pool_only:
        out = Path(args.out)
        kept = out.read_text().split(POOL_HEADING)[0].rstrip("\n") if out.exists() else ""
        section = pool_section(path, args.decisions, args.repeats)
        out.write_text((kept + "\n\n" if kept else "") + "\n".join(section) + "\n")
        print("\n".join(section))
        return
    rows = []
    for level, count in ((LEVEL_KEYS[0], args.decisions0), (ANALYSIS, args.decisions)):
        states = decisions(count)
        rng = random.Random(1)
        played = [rng.choice(s.legal_actions()) for s in states]
        graded = raw = native = float("inf")
        for _ in range(args.repeats):
            process = GnubgProcess(path, timeout=600)
            process.evaluate([board_of(states[0], 0)], 0)  # started and warm before any timing
            oracle = GnubgOracle(process, level)
            t = time.perf_counter()
            for s, a in zip(states, played, strict=True):
                oracle.grade(s, a)
            graded = min(graded, time.perf_counter() - t)
            by_plies: dict[int, list[Board]] = defaultdict(list)
            for board, plies, _, _ in oracle._cache:
                by_plies[plies].append(board)
            oracle.close()
            raw_process = GnubgProcess(path, timeout=600)
            raw_process.evaluate([board_of(states[0], 0)], 0)
            t = time.perf_counter()
            for plies, boards in by_plies.items():
                for i in range(0, len(boards), 32):
                    raw_process.evaluate(boards[i : i + 32], plies)
            raw = min(raw, time.perf_counter() - t)
            raw_process.close()
            native = min(
                native,
                gnubg_cli(path, hint_commands(level, states, True))
                - gnubg_cli(path, hint_commands(level, states, False)),
            )
        n = len(states)
        counts = ", ".join(f"{len(b)} at {p}" for p, b in sorted(by_plies.items()))
        rows.append((level.text(), n, counts, graded / n, raw / n, native / n))
    load = os.getloadavg()[0]
    lines = [
        "# Backgammon graded by gnubg: cost per decision",
        "",
        f"Command: `python bench/bench_gnubg.py --decisions {args.decisions} --decisions0 {args.decisions0} "
        f"--repeats {args.repeats}`",
        f"Machine: {os.cpu_count()} CPUs, load average {load:.1f} at the end (shared). gnubg 1.07 (Debian), one process.",
        "Decisions from seeded random games (no doubles, more than one play; `full_scoring`, gnubg's money "
        "equity); a played play drawn at random. `raw evaluate`: the positions the grader evaluated, at "
        "the plies it evaluated each, straight to gnubg (batches of 32); `gnubg hint`: gnubg's own CLI "
        "analysing the same decisions at the same level and move filter, start-up subtracted. Each figure: "
        "the least of the repeats.",
        "",
        "| level | decisions | positions evaluated (at plies) | graded ms/decision | raw evaluate ms/decision "
        "| gnubg hint ms/decision | graded / raw | graded / hint |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for text, n, counts, g, r, h in rows:
        lines.append(
            f"| {text} | {n} | {counts} | {g * 1e3:.1f} | {r * 1e3:.1f} | {h * 1e3:.1f} | {g / r:.2f} | {g / h:.2f} |"
        )
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
