"""Hidden-information games (issue 32). Run: .venv/bin/python bench/bench_hidden.py [--write]

Per game (Kuhn, Leduc, Liar's dice, phantom tic-tac-toe), CPU time (time.process_time, so a shared
machine's load does not inflate it) of: a random-vs-random game through the session; one sampled
world the mover cannot tell from the real one (players/worlds.py, the determinized search's step);
one `mcts` move (OpenSpiel's Python ISMCTSBot, seeded, where OpenSpiel resamples, determinized MCTS
elsewhere), one `mcts:search=ismcts_cpp` move (its C++ ISMCTSBot: faster, not reproducible from its
seed; determinized where OpenSpiel cannot resample) and one `mcts:search=determinized` move, all at the
default 1000 simulations. With --write the figures go
to bench/RESULTS-hidden.md with the command and machine.
"""

from __future__ import annotations

import asyncio
import platform
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyspiel

from plylab.games import get_game
from plylab.harness.plan import single_plan
from plylab.harness.session import play_game
from plylab.players import Turn, make_player
from plylab.players.worlds import sample_world

GAMES = ("kuhn_poker", "leduc_poker", "liars_dice", "phantom_ttt")


def _cpu(fn, n: int) -> float:  # noqa: ANN001
    t = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - t) / n


def _decision_states(game: str, n: int) -> list[pyspiel.State]:
    g, rng, out = get_game(game), random.Random(0), []
    while len(out) < n:
        s = g.new_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(rng.choice([o for o, _ in s.chance_outcomes()]))
                continue
            out.append(s.clone())
            s.apply_action(rng.choice(s.legal_actions()))
    return out[:n]


def _figures(game: str) -> str:
    """One line of figures for `game`."""
    jobs = iter(list(single_plan(game, "standard", "random", "random", 200, 0, None).jobs()))
    per_game = _cpu(lambda: asyncio.run(play_game(next(jobs))), 200)
    states = _decision_states(game, 40)
    rng = random.Random(1)
    worlds = iter(states * 5)

    def world() -> None:
        s = next(worlds)
        sample_world(s, int(s.current_player()), rng)

    per_world = _cpu(world, 200)
    g = get_game(game)
    f = g.formulation("standard")
    moves = {}
    for spec in ("mcts", "mcts:search=ismcts_cpp", "mcts:search=determinized"):
        player = make_player(spec, g, 7)
        todo = iter(states[:20])

        def move(p: Any = player, q: Iterator[pyspiel.State] = todo) -> None:
            s = next(q)
            asyncio.run(p.act(Turn(g, f, s.clone(), int(s.current_player()), 0, "bench")))

        moves[spec] = _cpu(move, 20)
    return (
        f"{game:<12} random game {per_game * 1e3:7.2f} ms · world {per_world * 1e3:6.2f} ms · "
        f"mcts move {moves['mcts'] * 1e3:7.1f} ms · ismcts_cpp move "
        f"{moves['mcts:search=ismcts_cpp'] * 1e3:6.1f} ms · determinized move "
        f"{moves['mcts:search=determinized'] * 1e3:7.1f} ms"
    )


def main() -> None:
    lines = [f"python {platform.python_version()}, pyspiel 2.0.2"]
    lines += [_figures(game) for game in GAMES]
    text = "\n".join(lines)
    print(text)
    if "--write" in sys.argv:
        Path(__file__).with_name("RESULTS-hidden.md").write_text(
            "## Hidden-information games (issue 32)\n\n"
            "Command: `.venv/bin/python bench/bench_hidden.py --write` (CPU time per item; 2-core shared "
            "machine)\n\n```\n" + text + "\n```\n"
        )


if __name__ == "__main__":
    main()
