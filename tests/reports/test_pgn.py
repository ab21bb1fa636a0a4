"""`plylab export --format pgn`: chess games with the engine's evaluations, read back by python-chess."""

from __future__ import annotations

import json
import re
import sqlite3

import chess
import chess.pgn
import pyspiel
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


# Closes its Event tag, forges a Site tag and a whole game, and carries a backslash.
HOSTILE = 'evil"] \\ x\n[Site "forged"]\n\n1. e4 e5 *\n\n[Event "forged'


def _unescaped(value: str) -> str:
    """A PGN string token's value (the standard, 7: `\\"` is a quote, `\\\\` a backslash); python-chess
    1.11 returns a tag as written, escapes included."""
    return re.sub(r'\\(["\\])', r"\1", value)


@pytest.mark.slow
def test_a_hostile_run_name_stays_inside_its_event_tag(cli, tmp_path) -> None:
    store = tmp_path / "s.sqlite"
    played = cli(
        "run", "--game", "chess", "--player", "random", "--opponent", "random", "--games", "3",
        "--score", "off", "--run", HOSTILE, "--store", str(store), "--quiet",
    )  # fmt: skip
    assert played.code == 0, played.err
    out = tmp_path / "games.pgn"
    assert cli("export", str(out), "--store", str(store), "--format", "pgn").code == 0
    with out.open() as fh:
        games = list(iter(lambda: chess.pgn.read_game(fh), None))
    conn = sqlite3.connect(store)
    stored = [gid for (gid,) in conn.execute("SELECT id FROM games ORDER BY id")]
    assert len(games) == len(stored) == 3  # no forged game
    engine = pyspiel.load_game("chess")
    for gid, pgn in zip(stored, games, strict=True):
        assert not pgn.errors
        assert _unescaped(pgn.headers["Event"]) == HOSTILE.replace("\n", " ")  # the name, on one line
        assert pgn.headers["Site"] == "plylab"
        state, played_san = engine.new_initial_state(), []
        for (action,) in conn.execute("SELECT action FROM moves WHERE game_id = ? ORDER BY ply", (gid,)):
            played_san.append(state.action_to_string(state.current_player(), action))
            state.apply_action(action)
        assert [node.san() for node in pgn.mainline()] == played_san  # OpenSpiel's SAN of the stored game
