"""Equilibrium oracles (issue 27). Run: .venv/bin/python bench/bench_equilibrium.py [--write] [GAME ...]

1. Per game (default: kuhn_poker, leduc_poker, liars_dice): CPU seconds to build the equilibrium
   from scratch (an empty PLYLAB_CACHE: CFR+ and the action-value walk), CFR+ iterations, the
   exploitability reached (absolute and as a fraction of the utility range), information sets,
   bytes on disk, and seconds to load the table back.
2. Stability (kuhn_poker, leduc_poker): the equilibrium rebuilt with vanilla CFR (`pyspiel.CFRSolver`,
   another equilibrium of the same game) beside CFR+'s: the largest change of any action's value and
   of any action's loss, and how many (information set, action) pairs change their verdict (the
   equilibrium plays it: probability above PLAYED; informative information sets).
3. Scoring cost per decision: microseconds per `grade_of(oracle, state, action)` on the decisions of
   random games (the whole cost the session adds to a move of these games).
Times are CPU seconds of this process (time.process_time). With --write the figures also go to
bench/RESULTS-equilibrium.md with the command and machine (then run bench/merge_results.py).
"""

from __future__ import annotations

import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

os.environ["PLYLAB_CACHE"] = tempfile.mkdtemp(prefix="plylab-bench-equilibrium-")  # builds from scratch

import pyspiel  # noqa: E402

from plylab.oracles.equilibrium import PLAYED, EquilibriumOracle, cache_path  # noqa: E402
from plylab.oracles.graded import grade_of  # noqa: E402

GAMES = ["kuhn_poker", "leduc_poker", "liars_dice"]
DECISIONS = 20_000


def decisions(game: pyspiel.Game, n: int, seed: int = 0) -> list[tuple[pyspiel.State, int]]:
    rng = random.Random(seed)
    out: list[tuple[pyspiel.State, int]] = []
    while len(out) < n:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(actions, weights=probs)[0])
                continue
            action = rng.choice(state.legal_actions())
            out.append((state.clone(), action))
            state.apply_action(action)
    return out[:n]


def bench(name: str) -> list[str]:
    game = pyspiel.load_game(name)
    t0 = time.process_time()
    oracle = EquilibriumOracle.load_or_build(game, name)
    build = time.process_time() - t0
    size = cache_path(name).stat().st_size
    t0 = time.process_time()
    EquilibriumOracle.load_or_build(game, name)
    load = time.process_time() - t0
    sample = decisions(game, DECISIONS)
    t0 = time.process_time()
    for state, action in sample:
        grade_of(oracle, state, action)
    per = (time.process_time() - t0) / len(sample) * 1e6
    rng = oracle.span
    return [
        f"{name}: built in {build:.2f} s CPU ({oracle.iterations} CFR+ iterations), "
        f"{len(oracle):,} information sets, {size:,} bytes on disk, loaded in {load:.3f} s",
        f"    exploitability {oracle.exploitability:.2e} = {oracle.exploitability / rng:.1e} of the range {rng:g} "
        f"(target {oracle.target:.2e}); value for player 1 {oracle.value[0]:+.5f}",
        f"    scoring: {per:.1f} us per decision (grade_of, {len(sample):,} decisions of random games)",
    ]


STABLE = ["kuhn_poker", "leduc_poker"]


def stability(name: str) -> list[str]:
    game = pyspiel.load_game(name)
    a = EquilibriumOracle.load_or_build(game, name)
    b = EquilibriumOracle.build(game, solver="cfr")
    tol = a.target
    dv = dl = 0.0
    pairs = flips = informative_flips = 0
    for key, ea in a.infosets.items():
        eb = b.infosets[key]
        best_a, best_b = max(ea.values.values()), max(eb.values.values())
        inf_a = best_a - min(ea.values.values()) > tol
        inf_b = best_b - min(eb.values.values()) > tol
        informative_flips += inf_a != inf_b
        for act, va in ea.values.items():
            pairs += 1
            dv = max(dv, abs(va - eb.values[act]))
            dl = max(dl, abs((best_a - va) - (best_b - eb.values[act])))
            flips += (ea.policy[act] > PLAYED) != (eb.policy[act] > PLAYED)
    # What a report sees: the decisions of random games, each scored by both equilibria.
    sample = decisions(game, 5_000, seed=1)
    diffs, verdicts = [], 0
    for state, action in sample:
        ga, gb = grade_of(a, state, action), grade_of(b, state, action)
        diffs.append(abs(ga.loss(action) - gb.loss(action)))
        verdicts += (ga.informative, ga.detail["played"]) != (gb.informative, gb.detail["played"])
    diffs.sort()
    return [
        f"{name}: CFR+ ({a.source}) beside CFR ({b.source})",
        f"    over {len(sample):,} decisions of random games: loss changes by {sum(diffs) / len(diffs):.4f} on "
        f"average (median {diffs[len(diffs) // 2]:.4f}, 99th percentile {diffs[int(0.99 * len(diffs))]:.4f}); "
        f"the verdict (informative, equilibrium action) changes on {verdicts / len(sample):.1%} of them",
        f"    largest change: action value {dv:.4f}, loss {dl:.4f} ({dl / a.span:.1e} of the range); "
        f"equilibrium-action verdict changes on {flips}/{pairs} (information set, action) pairs; "
        f"informative verdict on {informative_flips}/{len(a)} information sets",
    ]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    lines = [
        f"python {platform.python_version()}, pyspiel {pyspiel.__version__ if hasattr(pyspiel, '__version__') else '?'}"
    ]
    for name in args or GAMES:
        for line in bench(name):
            print(line, flush=True)
            lines.append(line)
    for name in [n for n in STABLE if n in (args or GAMES)]:
        for line in stability(name):
            print(line, flush=True)
            lines.append(line)
    if "--write" in sys.argv:
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        body = "\n".join(lines)
        text = f"""# Equilibrium oracles (issue 27)

Command: `.venv/bin/python bench/bench_equilibrium.py --write` (every equilibrium built from an empty
`PLYLAB_CACHE`; CPU seconds of the process, `time.process_time`)
Machine: {platform.machine()}, 2 cores shared with other work (load average {load} at the end).

```
{body}
```

- CFR+ runs until the exploitability is at most 1e-3 of the utility range and at least 1,000,000
  information-set updates are done (oracles/equilibrium.py `solve`): Kuhn and Leduc poker end well
  past the target for seconds, Liar's dice at the target. Most of Liar's dice's build is OpenSpiel's
  exploitability checks (one costs about twenty iterations) and the Python walk that values every
  action (one pass over every history).
- Scoring a decision is one information-state string and one dictionary lookup.
- Stability: the game value is the same in every equilibrium, and so are the values of actions whose
  worth does not depend on which equilibrium the opponent plays (a J facing a bet in Kuhn poker);
  where the game has a family of equilibria (Kuhn's first player bluffs a J with any probability in
  [0, 1/3]), values at information sets that family touches move with it, and the loss a score gives
  moves by the amount above. On Leduc, vanilla CFR stops less converged (exploitability 1e-2 against
  2e-4), and most of the 18% of verdicts that change are at information sets both reach often (median
  reach 0.8 of the deal's, measured separately): probabilities near the 0.05 threshold and value gaps
  near the tolerance. The expected loss is the sturdier score.
"""
        Path(__file__).with_name("RESULTS-equilibrium.md").write_text(text)


if __name__ == "__main__":
    main()
