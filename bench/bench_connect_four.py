"""Connect Four solver benchmark: plylab's exact solver beside bitbully, in the same run.

    python bench/bench_connect_four.py                      # figures, written to bench/RESULTS-connect_four.md
    python bench/bench_connect_four.py --games 20 --out -   # more games, print only
    python bench/bench_connect_four.py --make-sets 100      # regenerate tests/data/connect_four/ (needs bitbully)

1. Mean time per position on the six classes of the standard "moves score" test sets (end, middle
   and beginning of the game; easy to hard by the number of moves left under perfect play), each
   position solved to its exact score. The data are positions drawn in those classes and scored by
   bitbully and by plylab, which must agree (`--make-sets`).
2. CPU seconds to score every legal move of every position of full games between OpenSpiel's
   MCTSBot with 1000 and with 50 simulations, from ply 0, each game from a cold solver.

bitbully (AGPL) is only a reference: install it beside plylab in a scratch environment
(`pip install bitbully bitbully-databases`). Without it, its columns say "absent".
"""

from __future__ import annotations

import argparse
import random
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyspiel

from plylab.oracles import connect_four as c4

ROOT = Path(__file__).resolve().parents[1]
SETS_DIR = ROOT / "tests" / "data" / "connect_four"
RESULTS = ROOT / "bench" / "RESULTS-connect_four.md"
SIZE = 42


@dataclass(frozen=True)
class TestClass:
    """A class of the standard test sets: moves played and moves left, both inclusive ranges."""

    name: str
    standard: str
    played: tuple[int, int]
    left: tuple[int, int]


CLASSES = (
    TestClass("end_easy", "Test_L3_R1", (29, 41), (1, 13)),
    TestClass("middle_easy", "Test_L2_R1", (15, 28), (1, 13)),
    TestClass("middle_medium", "Test_L2_R2", (15, 28), (14, 27)),
    TestClass("begin_easy", "Test_L1_R1", (1, 14), (1, 13)),
    TestClass("begin_medium", "Test_L1_R2", (1, 14), (14, 27)),
    TestClass("begin_hard", "Test_L1_R3", (1, 14), (28, 42)),
)


def moves_left(score: int, played: int) -> int:
    """Moves until the game ends under perfect play: the winning stone N has score (44 - N) // 2."""
    if score == 0:
        return SIZE - played
    parity = (played + 1) % 2 if score > 0 else played % 2  # plies on which the winner plays
    last = next(n for n in (44 - 2 * abs(score), 43 - 2 * abs(score)) if n % 2 == parity)
    return last - played


def read_set(path: Path) -> list[tuple[list[int], int]]:
    """Lines 'MOVES SCORE' with columns 1-7; '#' starts a comment."""
    out = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            moves, score = line.split()
            out.append(([int(c) - 1 for c in moves], int(score)))
    return out


def load_bitbully():
    """bitbully's solver with its default book, or None when it is not installed here."""
    try:
        from bitbully import BitBully, Board
    except ImportError:
        return None
    return BitBully(), Board


def timed(fn: Callable[..., object], *args: object) -> tuple[object, float]:
    start = time.process_time()
    result = fn(*args)
    return result, time.process_time() - start


# ---- test sets ------------------------------------------------------------------------------


def bench_sets(bb, reps: int) -> list[dict]:
    """Each position timed for both solvers in turn (so load on the machine hits both alike), in
    `reps` passes over each set from empty transposition tables; a position's time is its best pass."""
    solver = c4.shared_solver()
    rows = []
    for cls in CLASSES:
        positions = read_set(SETS_DIR / f"{cls.name}.txt")
        ours = [float("inf")] * len(positions)
        theirs = [float("inf")] * len(positions) if bb is not None else []
        nodes = 0.0
        for _ in range(reps):
            solver.reset()
            if bb is not None:
                bb[0].reset_transposition_table()
            start_nodes = solver.nodes
            for i, (moves, expected) in enumerate(positions):
                score, dt = timed(solver.solve, moves)
                assert score == expected, (cls.name, moves, score, expected)
                ours[i] = min(ours[i], dt)
                if bb is not None:
                    agent, board = bb
                    score, dt = timed(agent.mtdf, board(moves))
                    assert score == expected, ("bitbully", cls.name, moves, score, expected)
                    theirs[i] = min(theirs[i], dt)
            nodes = (solver.nodes - start_nodes) / len(positions)
        rows.append({"class": cls, "n": len(positions), "ours": ours, "theirs": theirs, "nodes": nodes})
        print(
            f"{cls.name:14} {cls.standard}  n={len(positions):4}  plylab {fmt_s(statistics.mean(ours))}"
            f"  bitbully {fmt_s(statistics.mean(theirs)) if theirs else 'absent'}",
            flush=True,
        )
    return rows


# ---- full games -----------------------------------------------------------------------------


def play_game(game: pyspiel.Game, strong_first: bool, seed: int, sims: tuple[int, int]) -> list[int]:
    """One game between MCTSBots (uct_c=2, one random rollout); returns the column sequence."""
    bots = []
    for i, n in enumerate(sims):
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed + 2 * i)
        bots.append(pyspiel.MCTSBot(game, evaluator, 2.0, n, 1000, False, seed + 2 * i + 1, False))
    if not strong_first:
        bots.reverse()
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    return state.history()


def score_game_ours(history: list[int]) -> float:
    """Cold: empty transposition table and memo, as a fresh process would have."""
    c4.clear_caches()
    oracle = c4.ConnectFourOracle()
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    start = time.process_time()
    for action in history:
        oracle.move_values(state)
        state.apply_action(action)
    return time.process_time() - start


def score_game_theirs(bb, history: list[int]) -> float:
    agent, board = bb
    agent.reset_transposition_table()
    start = time.process_time()
    for ply in range(len(history)):
        agent.score_all_moves(board(history[:ply]))
    return time.process_time() - start


def bench_games(bb, n_games: int, sims: tuple[int, int], seed: int) -> list[dict]:
    game = pyspiel.load_game("connect_four")
    rows = []
    for g in range(n_games):
        history = play_game(game, strong_first=g % 2 == 0, seed=seed + 100 * g, sims=sims)
        ours = score_game_ours(history)
        theirs = score_game_theirs(bb, history) if bb is not None else None
        rows.append({"plies": len(history), "ours": ours, "theirs": theirs})
        print(
            f"game {g + 1:2}: {len(history):2} plies  plylab {ours:.3f} s"
            f"  bitbully {f'{theirs:.3f} s' if theirs is not None else 'absent'}",
            flush=True,
        )
    return rows


# ---- report ---------------------------------------------------------------------------------


def fmt_s(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def report(command: str, set_rows: list[dict], game_rows: list[dict], sims: tuple[int, int], bb) -> str:
    ref = "bitbully " + __import__("bitbully").__version__ if bb is not None else "bitbully absent"
    lines = [
        "# Connect Four solver",
        "",
        f"Command: `{command}` (a Python with plylab and, as the reference, `pip install bitbully`)  ",
        (
            f"Machine: {_machine()}; reference: {ref} with its default 12-ply distance book; "
            "CPU time (time.process_time), one process, both solvers in the same run."
        ),
        "",
        "## Standard test-set classes: mean time per position (exact score)",
        "",
        (
            "Per position, the best of the passes over its set; each pass starts from empty transposition "
            "tables and keeps them between positions, for both solvers."
        ),
        "",
        "| class | standard set | positions | plylab mean | plylab max | nodes/position | bitbully mean | ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in set_rows:
        cls, ours, theirs = r["class"], r["ours"], r["theirs"]
        mean_o = statistics.mean(ours)
        mean_t = statistics.mean(theirs) if theirs else None
        ratio = f"{mean_o / mean_t:.2f}x" if mean_t else "-"
        lines.append(
            f"| {cls.name} | {cls.standard} | {r['n']} | {fmt_s(mean_o)} | {fmt_s(max(ours))} | "
            f"{r['nodes']:.0f} | {fmt_s(mean_t) if mean_t is not None else 'absent'} | {ratio} |"
        )
    ours = [r["ours"] for r in game_rows]
    theirs = [r["theirs"] for r in game_rows if r["theirs"] is not None]
    lines += [
        "",
        f"## Every move of full games scored from ply 0: mcts:sims={sims[0]} vs mcts:sims={sims[1]}",
        "",
        (
            f"{len(game_rows)} games (seats alternating), {statistics.mean(r['plies'] for r in game_rows):.1f} "
            "plies on average; each game from a cold solver (empty transposition table and memo)."
        ),
        "",
        "| solver | median s/game | mean s/game | max s/game |",
        "|---|---:|---:|---:|",
        f"| plylab | {statistics.median(ours):.3f} | {statistics.mean(ours):.3f} | {max(ours):.3f} |",
    ]
    if theirs:
        lines.append(
            f"| bitbully | {statistics.median(theirs):.3f} | {statistics.mean(theirs):.3f} | {max(theirs):.3f} |"
        )
    return "\n".join(lines) + "\n"


def _machine() -> str:
    import os
    import platform

    model = (
        next(
            (
                line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")
            ),
            platform.processor() or platform.machine(),
        )
        if Path("/proc/cpuinfo").exists()
        else platform.machine()
    )
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{model}, {os.cpu_count()} cores (load average {load} at the end), Python {platform.python_version()}"


# ---- data generation ------------------------------------------------------------------------


def make_sets(per_class: int, seed: int) -> None:
    """Draw random positions (no game-ending move played, side to move cannot win at once) until
    every class holds `per_class`; each score is bitbully's and must equal plylab's."""
    bb = load_bitbully()
    if bb is None:
        sys.exit("--make-sets needs bitbully as the independent reference: pip install bitbully")
    agent, board = bb
    solver = c4.shared_solver()
    rng = random.Random(seed)
    found: dict[str, list[str]] = {cls.name: [] for cls in CLASSES}
    seen: set[str] = set()
    while any(len(v) < per_class for v in found.values()):
        cls = rng.choice([c for c in CLASSES if len(found[c.name]) < per_class])
        b = board()
        moves: list[int] = []
        target = rng.randint(*cls.played)
        while len(moves) < target:
            options = [c for c in range(7) if b.is_legal_move(c) and not b.can_win_next(c)]
            if not options:
                break
            col = rng.choice(options)
            b.play(col)
            moves.append(col)
        text = "".join(str(c + 1) for c in moves)
        if len(moves) < target or b.can_win_next() or text in seen:
            continue
        seen.add(text)
        score = agent.mtdf(b)
        if solver.solve(moves) != score:
            sys.exit(f"plylab and bitbully disagree on {text}: {solver.solve(moves)} vs {score}")
        left = moves_left(score, len(moves))
        for c in CLASSES:
            fits = c.played[0] <= len(moves) <= c.played[1] and c.left[0] <= left <= c.left[1]
            if fits and len(found[c.name]) < per_class:
                found[c.name].append(f"{text} {score}")
    SETS_DIR.mkdir(parents=True, exist_ok=True)
    for cls in CLASSES:
        header = (
            f"# {cls.name}: the class of {cls.standard} ({cls.played[0]}-{cls.played[1]} moves played, "
            f"{cls.left[0]}-{cls.left[1]} left under perfect play).\n"
            f"# Random positions, scored by bitbully and by plylab (equal): "
            f"python bench/bench_connect_four.py --make-sets {per_class} --seed {seed}\n"
        )
        (SETS_DIR / f"{cls.name}.txt").write_text(header + "\n".join(found[cls.name]) + "\n")
        print(f"wrote {len(found[cls.name])} positions to {SETS_DIR / cls.name}.txt")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=10, help="full games to score (default 10)")
    parser.add_argument("--sims", default="1000,50", help="MCTS simulations of the two players")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reps", type=int, default=3, help="passes over each test set; best per position")
    parser.add_argument("--out", default=str(RESULTS), help="markdown file for the figures; '-' prints only")
    parser.add_argument(
        "--make-sets", type=int, metavar="N", help="regenerate the test-set data, N per class"
    )
    args = parser.parse_args(argv)
    if args.make_sets:
        make_sets(args.make_sets, args.seed)
        return
    sims = tuple(int(s) for s in args.sims.split(","))
    bb = load_bitbully()
    if bb is None:
        print("bitbully is not installed here: plylab figures only (reference columns say 'absent')")
    set_rows = bench_sets(bb, args.reps)
    game_rows = bench_games(bb, args.games, sims, args.seed)  # type: ignore[arg-type]
    command = "python bench/bench_connect_four.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    text = report(command.strip(), set_rows, game_rows, sims, bb)  # type: ignore[arg-type]
    print(text)
    if args.out != "-":
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
