"""GNU Go as a Go player (issue 42, point 3): OpenSpiel's actions as GTP vertices at 9, 13 and 19,
GNU Go's board equal to OpenSpiel's over random games (captures included), a run that plays to the
end, a deadline on every GTP call, and Go said to have no ground truth. A GNU Go that dies mid-game leaves the game unfinished in
one line, as every engine does (issue 50, point 3)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from plylab.errors import ProviderFailure
from plylab.games import get_game
from plylab.harness.store import Store
from plylab.oracles.gtp import Gtp, action_of, gnugo_path, vertex
from tests.support.cli import run_args
from tests.support.fake_gtp import install

needs_gnugo = pytest.mark.skipif(gnugo_path() is None, reason="GNU Go is not installed (make engines)")


@pytest.mark.parametrize("size", [9, 13, 19])
def test_every_action_is_a_vertex_and_back(size) -> None:
    game = get_game(f"go:board_size={size}")
    state = game.new_state()
    for action in range(size * size + 1):
        v = vertex(action, size)
        assert action_of(v, size) == action
        # OpenSpiel names the same point ('B d4'), in lower case
        assert state.action_to_string(action).split()[-1].upper() == v.upper()
    assert vertex(0, size) == "A1" and vertex(size - 1, size) == "ABCDEFGHJKLMNOPQRST"[size - 1] + "1"
    assert action_of("resign", size) == size * size and action_of("I5", size) is None


def _stones(state, size: int) -> dict[str, set[str]]:
    """OpenSpiel's board as GTP vertices per colour (X black, O white), from its text."""
    rows = [ln for ln in str(state).splitlines() if ln[:3].strip().isdigit()]
    out: dict[str, set[str]] = {"black": set(), "white": set()}
    for ln in rows:
        number, cells = int(ln[:3]), ln[3:].strip()
        for col, c in enumerate(cells[:size]):
            if c in "XO":
                out["black" if c == "X" else "white"].add(f"{'ABCDEFGHJKLMNOPQRST'[col]}{number}")
    return out


@needs_gnugo
@pytest.mark.parametrize("size", [9, 13, 19])
def test_gnugo_board_equals_openspiels_over_a_random_game(size) -> None:
    game, rng = get_game(f"go:board_size={size}"), random.Random(size)
    engine = Gtp([str(gnugo_path()), "--mode", "gtp", "--chinese-rules"], timeout=30, board=(size, 7.5))
    try:
        state, captured = game.new_state(), False
        for ply in range(3 * size * size // 2):
            if state.is_terminal():
                break
            moves = [a for a in state.legal_actions() if a != size * size] or state.legal_actions()
            action = rng.choice(moves)
            before = sum(len(s) for s in _stones(state, size).values())
            engine.send(f"play {'black' if ply % 2 == 0 else 'white'} {vertex(action, size)}")
            state.apply_action(action)
            after = _stones(state, size)
            captured |= sum(len(s) for s in after.values()) <= before
            if ply % 7 == 0 or state.is_terminal():
                for colour in ("black", "white"):
                    assert set(engine.send(f"list_stones {colour}").split()) == after[colour], (ply, colour)
        assert captured  # the random game took stones off the board, and both boards agreed on it
    finally:
        engine.close()


@pytest.mark.slow
@needs_gnugo
def test_random_against_gnugo_level_1_plays_to_the_end(cli, tmp_path) -> None:
    store = tmp_path / "g.sqlite"
    r = cli(*run_args("go:board_size=9", "random", "gnugo:level=1", games=2, store=store))
    assert r.code == 0, r.err
    [row] = json.loads(cli("report", "--store", str(store), "--format", "json").out)["matchups"]
    assert row["games"] == 2 and row["failures"] == 0
    assert row["wins"] + row["draws"] + row["losses"] == 2  # each game ended with a count
    assert row["losses"] == 2  # GNU Go beats a random player


@pytest.mark.slow
def test_a_gtp_call_has_a_deadline() -> None:
    """An engine that never answers is killed at its deadline, restarted, then given up in one line."""
    engine = Gtp(["sleep", "30"], timeout=0.5, name="sleeper")
    start = time.monotonic()
    with pytest.raises(ProviderFailure, match="failed 3 times \\('name': no answer within 0.5 s") as info:
        engine.call(lambda: engine.send("name"))
    assert "\n" not in str(info.value) and "left unfinished" in str(info.value)
    assert time.monotonic() - start < 10 and engine.pid() is None


def test_a_gnu_go_that_dies_mid_game_leaves_the_game_unfinished_in_one_line(tmp_path: Path) -> None:
    """GNU Go exits on its fourth move, and again on every restart: the run ends cleanly (exit 0), one
    line says why, both games are left unfinished (not saved) for the same command to play again."""
    env = {**os.environ, **install(tmp_path / "bin", after=3)}
    store = tmp_path / "s.sqlite"
    argv = run_args("go:board_size=9", "random", "gnugo:level=1", games=2, store=store)
    done = subprocess.run(
        [sys.executable, "-m", "plylab", *argv], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr
    [line] = [x for x in done.stderr.splitlines() if not x.startswith("run '")]
    assert line == (
        f"plylab: gnugo ({tmp_path / 'bin' / 'gnugo'}) failed 3 times ('genmove white': the engine exited "
        "(code 3)); the game is left unfinished: re-run the same command to resume"
    )
    assert "stopped (2 games unfinished by provider failures (engine 2)" in done.stdout, done.stdout
    s = Store(store, create=False)
    try:
        assert s.games() == []
    finally:
        s.close()


@pytest.mark.parametrize(
    ("game", "opponent", "said"),
    [
        ("chess", "gnugo", "gnugo"),
        ("go:board_size=9", "gnugo:level=11", "level"),
        ("go:board_size=9", "optimal", "no ground truth: no engine strong enough to grade is available"),
    ],
)
def test_bad_requests_are_one_line(cli, tmp_path, game, opponent, said) -> None:
    r = cli(*run_args(game, "random", opponent, games=1, store=tmp_path / "s.sqlite"))
    assert r.code == 2 and said in r.err and "Traceback" not in r.err
