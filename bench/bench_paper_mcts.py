"""Is plylab's MCTS opponent (OpenSpiel's C++ MCTSBot) the paper's (OpenSpiel's Python MCTSBot)?

The paper (seed 003, l.49) uses MCTS with n=1000 simulations for tic-tac-toe and Nim and n=5000
for Connect Four, "other hyperparameters ... the OpenSpiel defaults"; its public code plays
`open_spiel.python.algorithms.mcts.MCTSBot(solve=True)` with a `RandomRolloutEvaluator`. plylab
plays `pyspiel.MCTSBot` (C++) with the same settings. This script plays both against Random and
against Optimal (minimax, uniform among best moves) on each game, sides switched after half, and
compares, per cell, MCTS's win / draw / loss rates and its per-move optimality (informative states
only, as the paper) by their 95% Wilson intervals.

Games are played in order (tic-tac-toe, Nim, Connect Four); within a game, rounds of `--chunk`
games alternate over opponents and both implementations until each cell has `--games` games or
`--time-budget` seconds have passed, so both implementations always have the same number of
games per cell and a short run is an honest smaller sample, not a lopsided one.

    python bench/bench_paper_mcts.py                                     # 100 games per cell (10 Connect Four)
    python bench/bench_paper_mcts.py --games 1000                       # the issue's full size
    python bench/bench_paper_mcts.py --games 1000 --time-budget 900 --out bench/paper_mcts.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts as py_mcts

from plylab.analysis.stats import wilson
from plylab.games import GAMES
from plylab.harness.plan import derive_seed
from plylab.oracles.base import best_actions

SIMS = {"tic_tac_toe": 1000, "nim": 1000, "connect_four": 5000}  # seed 003 l.49
UCT_C = 2.0  # OpenSpiel's default exploration constant (examples/mcts.py, pyspiel.MCTSBot callers)


def make_bot(impl: str, game: pyspiel.Game, sims: int, seed: int):
    if impl == "cpp":
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        bot = pyspiel.MCTSBot(game, evaluator, UCT_C, sims, 1000, True, seed + 1, False)
        return bot, evaluator  # keep the evaluator alive as long as the bot
    rng = np.random.RandomState(seed)
    evaluator = py_mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    return py_mcts.MCTSBot(game, UCT_C, sims, evaluator, solve=True, random_state=rng), evaluator


@dataclass
class Cell:
    games: int = 0
    win: int = 0
    draw: int = 0
    loss: int = 0
    optimal: int = 0
    scored: int = 0
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


def play(game_name: str, impl: str, opponent: str, idx: int, total: int, seed: int) -> tuple[int, int, int]:
    """One game; returns (MCTS's return, its optimal informative moves, its informative moves)."""
    gdef = GAMES.get(game_name)
    engine, oracle = gdef.engine, gdef.oracle()
    rng = random.Random(seed)
    mcts_seat = 0 if idx < total // 2 else 1
    bot, _keep = make_bot(impl, engine, SIMS[game_name], seed)
    state = engine.new_initial_state()
    optimal = scored = 0
    while not state.is_terminal():
        if state.current_player() == mcts_seat:
            action = bot.step(state)
            mv = oracle.move_values(state)
            if mv.informative:
                scored += 1
                optimal += mv.optimal(action)
        elif opponent == "random":
            action = rng.choice(state.legal_actions())
        else:
            action = rng.choice(best_actions(oracle.move_values(state)))
        state.apply_action(action)
    return int(state.returns()[mcts_seat]), optimal, scored


def interval(k: int, n: int) -> list[float | None]:
    e = wilson(k, n)
    return [e.rate, e.low, e.high]


def overlap(a: list[float | None], b: list[float | None]) -> bool | None:
    if a[0] is None or b[0] is None:
        return None
    return not (a[2] < b[1] or b[2] < a[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--games",
        type=int,
        default=100,
        help="target games per cell (default 100 for `make bench`; the issue's size: 1000)",
    )
    ap.add_argument(
        "--games-connect-four",
        type=int,
        default=None,
        help="target for Connect Four, whose Python MCTS at n=5000 takes seconds a game (default: --games / 10)",
    )
    ap.add_argument("--game", action="append", choices=sorted(SIMS), help="games to play (default all)")
    ap.add_argument("--opponent", action="append", choices=["random", "optimal"], help="default both")
    ap.add_argument("--chunk", type=int, default=10, help="games per cell per round (even)")
    ap.add_argument(
        "--time-budget", type=float, default=None, help="stop starting rounds after this many seconds"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="write the cells as JSON here")
    ap.add_argument(
        "--resume",
        type=Path,
        default=None,
        help="continue from an earlier --out file: its games count and the next ones are the games a "
        "single longer run would play (seeds are per game index), so the result is that run's",
    )
    args = ap.parse_args(argv)
    games = args.game or list(SIMS)
    opponents = args.opponent or ["random", "optimal"]
    c4 = args.games_connect_four if args.games_connect_four is not None else max(2, args.games // 10)
    target = {g: c4 if g == "connect_four" else args.games for g in games}
    cells: dict[tuple[str, str, str], Cell] = {
        (g, o, i): Cell() for g in games for o in opponents for i in ("cpp", "python")
    }
    earlier_s = 0.0
    if args.resume:
        earlier = json.loads(args.resume.read_text())
        earlier_s = earlier["elapsed_s"]
        for row in earlier["cells"]:
            for impl in ("cpp", "python"):
                if (key := (row["game"], row["opponent"], impl)) in cells:
                    r, n = row[impl], row[impl]["counts"]
                    cells[key] = Cell(
                        games=r["games"],
                        win=n["W"],
                        draw=n["D"],
                        loss=n["L"],
                        optimal=n["optimal"],
                        scored=n["scored"],
                        seconds=(r["seconds_per_game"] or 0.0) * r["games"],
                    )
    start = time.monotonic()
    chunk = max(2, args.chunk - args.chunk % 2)
    # Games in order (tic-tac-toe and Nim are cheap, Connect Four at n=5000 is not); within a game,
    # rounds of `chunk` games alternate over opponents and implementations.
    for g in games:
        while True:
            open_cells = [o for o in opponents if cells[(g, o, "cpp")].games < target[g]]
            if not open_cells or (
                args.time_budget is not None and time.monotonic() - start > args.time_budget
            ):
                break
            for o in open_cells:
                n = min(chunk, target[g] - cells[(g, o, "cpp")].games)
                base = cells[(g, o, "cpp")].games
                for impl in ("cpp", "python"):
                    c = cells[(g, o, impl)]
                    t0 = time.monotonic()
                    for j in range(n):
                        # Sides switch within every chunk: half with MCTS first, half second.
                        ret, k, m = play(g, impl, o, j, n, seed=derive_seed(args.seed, g, o, base + j))
                        c.games += 1
                        c.win += ret > 0
                        c.draw += ret == 0
                        c.loss += ret < 0
                        c.optimal += k
                        c.scored += m
                    c.seconds += time.monotonic() - t0
                print(
                    f"[{time.monotonic() - start:7.1f}s] {g} vs {o}: {cells[(g, o, 'cpp')].games} games per impl",
                    file=sys.stderr,
                    flush=True,
                )
    rows = []
    print(
        f"{'game':13} {'opponent':8} {'impl':6} {'games':>5}  {'win':>22} {'draw':>22} {'loss':>22} {'optimality':>22}  s/game"
    )
    for g in games:
        for o in opponents:
            pair = {}
            for impl in ("cpp", "python"):
                c = cells[(g, o, impl)]
                pair[impl] = {
                    "games": c.games,
                    "win": interval(c.win, c.games),
                    "draw": interval(c.draw, c.games),
                    "loss": interval(c.loss, c.games),
                    "optimality": interval(c.optimal, c.scored),
                    "counts": {
                        "W": c.win,
                        "D": c.draw,
                        "L": c.loss,
                        "optimal": c.optimal,
                        "scored": c.scored,
                    },
                    "seconds_per_game": c.seconds / c.games if c.games else None,
                }
                fmt = lambda v: "–" if v[0] is None else f"{v[0]:.3f} [{v[1]:.3f},{v[2]:.3f}]"  # noqa: E731
                p = pair[impl]
                print(
                    f"{g:13} {o:8} {impl:6} {c.games:5}  {fmt(p['win']):>22} {fmt(p['draw']):>22} "
                    f"{fmt(p['loss']):>22} {fmt(p['optimality']):>22}  {p['seconds_per_game'] or 0:.3f}"
                )
            agree = {
                m: overlap(pair["cpp"][m], pair["python"][m]) for m in ("win", "draw", "loss", "optimality")
            }
            print(f"{'':13} {'':8} agree (95% intervals overlap): {agree}")
            rows.append(
                {
                    "game": g,
                    "opponent": o,
                    "sims": SIMS[g],
                    "solve": True,
                    "uct_c": UCT_C,
                    **pair,
                    "agree": agree,
                }
            )
    elapsed = time.monotonic() - start + earlier_s
    print(f"elapsed {elapsed:.0f}s" + (f" (with {earlier_s:.0f}s of {args.resume})" if args.resume else ""))
    if args.out:
        args.out.write_text(
            json.dumps({"command": " ".join(sys.argv), "elapsed_s": elapsed, "cells": rows}, indent=2)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
