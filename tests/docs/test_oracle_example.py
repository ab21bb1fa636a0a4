"""The manual's worked example of an oracle ("Extending plylab: an oracle") is real: a toy game graded
by a toy oracle (misère Nim valued by the nim-sum rule, no search) agrees with plylab's own table on
every position, and the real harness plays it, grades every move with it and reports optimality.

The module is written to a temporary folder and imported by a child process, as
tests/core/test_extension.py does, so its registrations never reach the registries other tests see.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

TOY = '''
"""A toy game with its own oracle: misère Nim on piles 2 and 3, graded by theory."""

# --8<-- [start:oracle]
from functools import reduce
from operator import xor

import pyspiel

from plylab.games import Formulation, GameDef, register_game
from plylab.games.base import GroundTruth
from plylab.oracles import MoveValues


def piles(state: pyspiel.State) -> list[int]:
    """OpenSpiel's Nim writes a position as '(player): 2 3'."""
    return [int(n) for n in str(state).split(":", 1)[1].split()]


def mover_wins(sizes: list[int]) -> bool:
    """Misère Nim (whoever takes the last coin loses), by theory: with no pile above one the
    player to move wins when an even number of coins is left; otherwise when the nim-sum is not 0."""
    if all(n <= 1 for n in sizes):
        return sum(sizes) % 2 == 0
    return reduce(xor, sizes) != 0


class NimSum:
    """The oracle: each legal move's exact value (+1 win, 0 draw, -1 loss) for the player to move."""

    def move_values(self, state: pyspiel.State) -> MoveValues:
        return MoveValues(
            {a: -1 if mover_wins(piles(state.child(a))) else 1 for a in state.legal_actions()}
        )


GAME = register_game(
    GameDef(
        name="toy_nim",
        title="Toy Nim",
        openspiel_name="nim",
        openspiel_params={"pile_sizes": "2;3", "is_misere": True},
        summary="misère Nim on piles 2 and 3, graded by the nim-sum",
        ground_truth=GroundTruth("exact", "nim-sum", table=lambda game: NimSum()),  # the game names its ground truth
    )
)
# --8<-- [end:oracle]


@GAME.add_formulation
class Piles(Formulation):
    name = "standard"

    def rules(self) -> str:
        return "Two piles of coins, 2 and 3. Take one or more coins from one pile; whoever takes the last coin loses."

    def render_state(self, state: pyspiel.State) -> str:
        return ", ".join(f"pile {i + 1}: {n}" for i, n in enumerate(piles(state)))

    def action_label(self, state: pyspiel.State, action: int) -> str:
        return f"pile {action % 2 + 1} take {action // 2 + 1}"
'''

CHECK = """
import sys
import toy_oracle  # registers the toy game, as a module named in games/__init__.py would be
from plylab.cli import main
from plylab.games import GAMES

# The toy oracle against plylab's own exact table for the same game, at every reachable position.
toy, table = GAMES.get("toy_nim"), GAMES.get("nim:pile_sizes=2;3")
stack, seen = [toy.new_state()], 0
while stack:
    state = stack.pop()
    if state.is_terminal():
        continue
    mine, theirs = toy.oracle().move_values(state), table.oracle().move_values(state)
    assert mine.values == theirs.values, (str(state), mine.values, theirs.values)
    seen += 1
    stack.extend(state.child(a) for a in state.legal_actions())
print("positions", seen)
code = main(sys.argv[1 : sys.argv.index("--then")])
sys.exit(code or main(sys.argv[sys.argv.index("--then") + 1 :]))
"""


def test_the_manuals_toy_oracle_grades_a_toy_game_through_the_real_harness(tmp_path: Path) -> None:
    (tmp_path / "toy_oracle.py").write_text(textwrap.dedent(TOY))
    store = tmp_path / "toy.sqlite"
    run = ["run", "--game", "toy_nim", "--player", "random", "--opponent", "optimal", "--games", "6"]
    report = ["report", "--store", str(store), "--format", "json"]
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            CHECK,
            *run,
            "--seed",
            "1",
            "--store",
            str(store),
            "--quiet",
            "--then",
            *report,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])},
    )
    assert r.returncode == 0, r.stderr
    assert int(r.stdout.split("positions", 1)[1].split()[0]) > 5
    rows = json.loads(r.stdout[r.stdout.index("{") :])["matchups"]
    assert len(rows) == 1 and rows[0]["games"] == 6
    # The harness graded the moves with the toy oracle (random's informative ones: optimal's are all optimal).
    assert rows[0]["optimality"]["scored"] > 0, rows[0]
