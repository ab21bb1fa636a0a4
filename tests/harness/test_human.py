"""The human player through a real terminal session: shows the board, re-asks on bad input."""

import json
import sqlite3

from tests.support.cli import plylab_subprocess, run_args


def test_human_is_reasked_until_the_move_is_legal(tmp_path):
    store = tmp_path / "s.sqlite"
    # Nim, human first: a nonsense line, an illegal move (pile 1 holds one stone), then whole piles.
    answers = (
        "\n".join(
            [
                "hello",
                "pile 1, take 3",
                "pile 4, take 7",
                "pile 3, take 5",
                "pile 2, take 3",
                "pile 1, take 1",
                "pile 1, take 1",
            ]
        )
        + "\n"
    )
    res = plylab_subprocess(
        *run_args("nim", "human", "random", games=1, store=store),
        input=answers,
    )
    assert res.returncode == 0, res.stderr
    assert "Pile 4: 7 stones" in res.stdout and "Legal moves:" in res.stdout
    assert "does not name a move" in res.stdout and "not a legal move now" in res.stdout
    rep = plylab_subprocess("report", "--store", str(store), "--format", "json")
    [row] = json.loads(rep.stdout)["matchups"]
    assert row["games"] == 1 and row["failures"] == 0
    # The first legal line is the move stored: 7 from pile 4 (action (7 - 1) * 4 piles + index 3).
    with sqlite3.connect(store) as conn:
        first = conn.execute("SELECT seat, action FROM moves WHERE ply = 0").fetchall()
    assert first == [(0, 27)]
