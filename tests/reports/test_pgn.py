"""`plylab export --format pgn`: chess games with the engine's evaluations, read back by python-chess."""

from __future__ import annotations

import json
import sqlite3

import chess
import chess.pgn
import pytest

from plylab.oracles.graded import Grade
from tests.support.engines import needs_stockfish


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
@needs_stockfish
def test_pgn_reads_back_with_the_stored_evaluations_and_annotations(cli, tmp_path) -> None:
    store = tmp_path / "s.sqlite"
    played = cli(
        "run", "--game", "chess", "--player", "stockfish:nodes=500", "--opponent", "random",
        "--games", "2", "--score", "nodes=1000", "--store", str(store), "--quiet",
    )  # fmt: skip
    assert played.code == 0, played.err
    out = tmp_path / "games.pgn"
    done = cli("export", str(out), "--store", str(store), "--format", "pgn")
    assert done.code == 0 and "wrote 2 games" in done.out
    conn = sqlite3.connect(store)
    stored = {
        gid: [(Grade.from_json(g), seat) for g, seat in conn.execute(
            "SELECT grade, seat FROM moves WHERE game_id = ? ORDER BY ply", (gid,))]
        for (gid,) in conn.execute("SELECT id FROM games ORDER BY id")
    }  # fmt: skip
    with out.open() as fh:
        games = [chess.pgn.read_game(fh) for _ in range(2)]
    nags = 0
    for (gid, grades), pgn in zip(stored.items(), games, strict=True):
        assert pgn is not None and not pgn.errors
        player, seat = conn.execute("SELECT player, player_seat FROM games WHERE id = ?", (gid,)).fetchone()
        assert pgn.headers["White" if seat == 1 else "Black"] == player  # OpenSpiel's seat 1 moves first
        assert pgn.headers["Annotator"] == "stockfish 15.1 nodes=1000"
        nodes = list(pgn.mainline())
        assert len(nodes) == len(grades)
        for node, (grade, _) in zip(nodes, grades, strict=True):
            ev = grade.detail["played_eval"]
            if "result" in ev:  # lichess keeps no evaluation after a checkmate; a draw is 0.00
                assert node.eval() is None if ev["result"] != 0.5 else node.eval().white().score() == 0
                continue
            white = node.eval().white()
            mover_white = grade.detail["mover"] == "white"
            if ev["mate"] is not None:
                assert white.mate() == (ev["mate"] if mover_white else -ev["mate"])
            else:
                assert white.score() == (ev["cp"] if mover_white else -ev["cp"])
            nags += bool(node.nags)
        assert pgn.end().board().is_game_over() or pgn.headers["Result"] == "1/2-1/2"
        result = json.loads(conn.execute("SELECT returns FROM games WHERE id = ?", (gid,)).fetchone()[0])
        assert pgn.headers["Result"] == {1.0: "1-0", -1.0: "0-1", 0.0: "1/2-1/2"}[result[1]]
    assert nags > 0  # the random side's blunders are marked


def test_pgn_of_a_store_without_chess_says_so(cli, tmp_path) -> None:
    store = tmp_path / "s.sqlite"
    assert cli("run", "--game", "tic_tac_toe", "--player", "random", "--opponent", "random",
               "--games", "1", "--store", str(store), "--quiet").code == 0  # fmt: skip
    done = cli("export", str(tmp_path / "x.pgn"), "--store", str(store), "--format", "pgn")
    assert done.code != 0 and "no games of the chess family" in done.err
