"""gnubg's named player levels graded by the default grader (gnubg's analysis level): equity lost
per decision on the same fixed positions, and the time each level takes to choose a play.

Positions: the decisions of one seeded random game (`full_scoring`) with more than one legal action,
a double's halves included. Each level is the `gnubg:level=...` player (players/gnubg.py).

Usage: python bench/bench_gnubg_levels.py [--positions 80] [--out bench/RESULTS-gnubg-levels.md]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

import pyspiel

from plylab.games import get_game
from plylab.oracles.gnubg import GnubgOracle, GnubgProcess, gnubg_path
from plylab.players.gnubg import LEVELS


def positions(count: int, seed: int = 11) -> list[pyspiel.State]:
    rng, out = random.Random(seed), []
    while len(out) < count:
        state = get_game("backgammon:scoring_type=full_scoring").engine.new_initial_state()
        while not state.is_terminal() and len(out) < count:
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            if len(state.legal_actions()) > 1:
                out.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=80)
    ap.add_argument("--out", default="bench/RESULTS-gnubg-levels.md")
    args = ap.parse_args()
    path = gnubg_path()
    if path is None:
        raise SystemExit("gnubg is not installed (make engines): nothing to measure")
    states = positions(args.positions)
    grader = GnubgOracle(GnubgProcess(path, timeout=600))  # the default level
    rows = []
    for name, level in LEVELS.items():
        player = GnubgOracle(GnubgProcess(path, timeout=600), level)
        t = time.perf_counter()
        chosen = [player.best_action(s) for s in states]
        took = (time.perf_counter() - t) / len(states)
        player.close()
        loss = sum(grader.grade(s, a).loss(a) for s, a in zip(states, chosen, strict=True)) / len(states)
        rows.append((name, level.text(), 1000 * loss, 1000 * took))
    grader.close()
    lines = [
        "# gnubg's named levels, graded at gnubg's analysis level",
        "",
        f"Command: `python bench/bench_gnubg_levels.py --positions {args.positions}`",
        f"Machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end (shared). gnubg 1.07 (Debian).",
        f"{len(states)} decisions of a seeded random game (`full_scoring`, more than one legal action); the "
        "loss is the grader's at its default level (2-ply, move filter 'large'), in millipoints.",
        "",
        "| level | gnubg setting | loss per decision (mp) | ms per play chosen |",
        "|---|---|---|---|",
        *[f"| {n} | {t} | {loss:.1f} | {ms:.0f} |" for n, t, loss, ms in rows],
    ]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
