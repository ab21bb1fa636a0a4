"""GNU Go as a Go player (issue 42, point 3): OpenSpiel's actions as GTP vertices at 9, 13 and 19,
GNU Go's board equal to OpenSpiel's over random games (captures included), a run that plays to the
end, a deadline on every GTP call, and Go said to have no ground truth."""

from __future__ import annotations

import json
import random
import time

import pytest

from plylab.games import get_game
from plylab.players.gnugo import Gtp, GtpError, action_of, gnugo_path, vertex
from tests.support.cli import run_args

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
    engine = Gtp([str(gnugo_path()), "--mode", "gtp", "--chinese-rules"], timeout=30)
    try:
        engine.send(f"boardsize {size}")
        engine.send("clear_board")
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
    assert row["wins"] + row["draws"] + row["losses"] == 2  # each game ended with OpenSpiel's score
    assert row["losses"] == 2  # GNU Go beats a random player


@pytest.mark.slow
def test_a_gtp_call_has_a_deadline() -> None:
    """An engine that never answers fails in one line within the deadline, and is killed."""
    engine = Gtp(["sleep", "30"], timeout=0.5)
    start = time.monotonic()
    with pytest.raises(GtpError, match="no answer to 'name' within 0.5 s"):
        engine.send("name")
    assert time.monotonic() - start < 5 and engine.proc.poll() is not None


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
