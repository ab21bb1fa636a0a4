"""A newcomer's afternoon: a new game (with its formulation) and a new player are one module each,
and the real harness plays them, stores them and reports them without any other change.

The module is written to a temporary folder and imported by a child `plylab` process, so the toy
registrations never leak into the registries the other tests see.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

TOY = '''
"""A toy game (misère Nim on piles 2 and 3, as coins on two tables) and a toy player (always the
smallest legal action): exactly what src/plylab/games/<game>.py and src/plylab/players/<player>.py hold."""

# --8<-- [start:game]
import pyspiel

from plylab.errors import ParseError
from plylab.games import Formulation, GameDef, register_game
from plylab.players import Decision, Player, Turn, register_player

PILES = (2, 3)


class Coins(Formulation):
    name = "standard"

    def rules(self) -> str:
        return "Two tables hold coins. On your turn take one or more coins from one table. Whoever takes the last coin loses."

    def render_state(self, state: pyspiel.State) -> str:
        sizes = [int(x) for x in str(state).split(":", 1)[1].split()]
        return ", ".join(f"table {i + 1}: {n} coins" for i, n in enumerate(sizes))

    def action_label(self, state: pyspiel.State, action: int) -> str:
        table, take = action % len(PILES), action // len(PILES) + 1
        return f"table {table + 1} take {take}"


GAME = register_game(
    GameDef(name="toy_coins", title="Toy coins", openspiel_name="nim",
            openspiel_params={"pile_sizes": "2;3", "is_misere": True}, summary="a test's toy game")
)
GAME.add_formulation(Coins)
# --8<-- [end:game]


# --8<-- [start:player]
@register_player
class Lowest(Player):
    name = "toy-lowest"
    summary = "always the smallest legal action"

    async def act(self, turn: Turn) -> Decision:
        return Decision(min(turn.state.legal_actions()))
# --8<-- [end:player]
'''

RUN = """
import sys
import toy_module  # registers the toy game and player, as a module imported by games/ and players/ would
from plylab.cli import main
code = main(sys.argv[1:sys.argv.index("--then")])
sys.exit(code or main(sys.argv[sys.argv.index("--then") + 1:]))
"""


def test_a_toy_game_and_player_play_through_the_real_harness(tmp_path: Path) -> None:
    (tmp_path / "toy_module.py").write_text(textwrap.dedent(TOY))
    store = tmp_path / "toy.sqlite"
    run = [
        "run",
        "--game",
        "toy_coins",
        "--player",
        "toy-lowest",
        "--opponent",
        "random",
        "--games",
        "4",
        "--seed",
        "2",
        "--store",
        str(store),
        "--quiet",
    ]
    report = ["report", "--store", str(store), "--format", "json"]
    r = subprocess.run(
        [sys.executable, "-c", RUN, *run, "--then", *report],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout[r.stdout.index("{") :])["matchups"]
    assert len(rows) == 1 and rows[0]["games"] == 4
    assert "toy-lowest" in json.dumps(rows[0]) and "toy_coins" in json.dumps(rows[0])

    # The stored moves are the toy player's choices: on each of its turns, the smallest legal action.
    with sqlite3.connect(store) as conn:
        conn.row_factory = sqlite3.Row
        games = conn.execute("SELECT * FROM games").fetchall()
        moves = conn.execute("SELECT * FROM moves").fetchall()
    assert len(games) == 4
    mine = [m for m in moves if m["player"] == "toy-lowest"]
    assert mine and all(m["action"] == min(json.loads(m["legal"])) for m in mine)
    assert {m["action_label"] for m in mine} <= {f"table {t} take {n}" for t in (1, 2) for n in (1, 2, 3)}
