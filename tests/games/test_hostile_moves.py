"""A reply, a move string or a typed move never kills the process (issue 31, point 1).

Chess and crazyhouse crash (SIGSEGV) when OpenSpiel names an action that is not legal where it is
asked; antichess and shogi print an exception per action; quoridor warns on every load. Every case
runs in a child process, so a crash is a failed assertion and not the end of the test session.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.models.hostile_server import Hostile, HostileServer, completion
from tests.support.cli import plylab_subprocess, run_args

PARSE = """
import sys
from plylab.errors import ParseError
from plylab.games import get_game
game = get_game(sys.argv[1])
f = game.formulation("standard")
state = game.new_state()
for text in sys.argv[2:]:
    try:
        print(text, "->", f.parse_action(state, text))
    except ParseError as err:
        print(text, "->", err.kind)
"""


def _parse(game: str, *texts: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PARSE, game, *texts], capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
@pytest.mark.parametrize("game", ["chess", "crazyhouse", "antichess", "shogi"])
def test_a_reply_that_is_not_a_move_is_a_parse_error_not_a_crash(game: str) -> None:
    res = _parse(game, "garbage", "a2a3", "=HYPERLINK(1)", "")
    assert res.returncode == 0, (res.returncode, res.stderr[-500:])
    assert res.stderr == ""  # not one line of OpenSpiel's exceptions
    kinds = dict(line.split(" -> ") for line in res.stdout.splitlines() if " -> " in line)
    assert kinds["garbage"] == "unparseable" and kinds["a2a3"] == "unparseable"


@pytest.mark.slow
def test_a_chess_move_of_the_legal_shape_is_illegal_and_a_legal_one_parses() -> None:
    res = _parse("chess", "e5", "Nf3", "e4")
    assert res.returncode == 0 and "Warning" not in res.stderr and "known issues" not in res.stderr, (
        res.stderr
    )
    e5, nf3, e4 = (line.split(" -> ")[1] for line in res.stdout.splitlines())
    assert e5 == "illegal" and nf3.isdigit() and e4.isdigit(), res.stdout


@pytest.mark.slow
def test_solve_with_a_move_string_chess_cannot_parse_is_one_line() -> None:
    res = plylab_subprocess("solve", "--game", "chess", "--moves", "a2a3")
    assert res.returncode == 2, (res.returncode, res.stderr[-500:])
    assert "move 1 of 'a2a3'" in res.stderr and "does not name a move" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr


@pytest.mark.slow
def test_a_chess_run_whose_model_replies_garbage_records_it_and_replays_it(tmp_path: Path) -> None:
    """The reply is cached: before the fix the re-run crashed again and the run stayed `running`."""
    store = tmp_path / "s.sqlite"
    key = {"HOSTILE_API_KEY": "sk-test-hostile-moves-0123456789"}
    with HostileServer() as server:
        server.queue(*[Hostile(body=completion('"ANSWER: garbage"'))] * 4)
        spec = f"llm:model=openai-api/hostile/m,base_url={server.url},output=text"
        for run in ("first", "again"):
            args = run_args("chess", spec, "random", games=1, store=store)
            res = plylab_subprocess(*args, "--run", run, env=key, timeout=300)
            assert res.returncode == 0, (res.returncode, res.stderr[-500:])
        asked = len(server.requests)
    assert asked == 1  # the second run read the reply from the cache
    with sqlite3.connect(store) as conn:
        kinds = conn.execute("SELECT failure_kind FROM moves WHERE failure_kind IS NOT NULL").fetchall()
        status = conn.execute("SELECT DISTINCT status FROM runs").fetchall()
    conn.close()
    assert kinds == [("unparseable",), ("unparseable",)]
    assert "running" not in {s for (s,) in status}


@pytest.mark.slow
def test_a_person_typing_garbage_at_chess_is_asked_again(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    res = plylab_subprocess(*run_args("chess", "human", "random", games=1, store=store), input="garbage\n")
    assert res.returncode in (0, 2, 130), (res.returncode, res.stderr[-500:])  # it ends at end of input
    assert res.returncode >= 0  # not killed by a signal
    assert "does not name a move" in res.stdout, res.stdout[-500:]


@pytest.mark.slow
def test_quoridor_plays_without_openspiel_warnings(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    res = plylab_subprocess(*run_args("quoridor", games=1, store=store))
    assert res.returncode == 0 and "Warning" not in res.stderr and "known issues" not in res.stderr, (
        res.stderr
    )


NAME_EVERY_ACTION = """
import random, sys
from plylab.games import get_game
from plylab.games.generic import LEGAL_NAMES_ONLY, playable_types
names = [gt.short_name for gt in playable_types() if gt.short_name not in LEGAL_NAMES_ONLY]
for name in names:
    game = get_game(name)
    f = game.formulation("standard")
    state, rng = game.new_state(), random.Random(0)
    for _ in range(3):  # the start and two positions further on
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        if state.is_terminal():
            break
        if not hasattr(f, "labels"):
            f.all_labels(state)
        for _ in range(5):
            if state.is_terminal() or state.is_chance_node():
                break
            state.apply_action(rng.choice(state.legal_actions()))
    print(name, flush=True)
"""


@pytest.mark.slow
def test_every_other_game_names_any_action_safely() -> None:
    """LEGAL_NAMES_ONLY is complete: every other game names every action without a crash or a print."""
    res = subprocess.run(
        [sys.executable, "-c", NAME_EVERY_ACTION], capture_output=True, text=True, timeout=600
    )
    assert res.returncode == 0, (res.returncode, res.stdout.split()[-1:], res.stderr[-500:])
    assert res.stderr == ""
    assert "chess" not in res.stdout.split() and "go" in res.stdout.split()
