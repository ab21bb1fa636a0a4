"""GNU Go as a Go player (issue 42, point 3): OpenSpiel's actions as GTP vertices at 9, 13 and 19,
GNU Go's board equal to OpenSpiel's over random games (captures included), a run that plays to the
end, a deadline on every GTP call, and Go said to have no ground truth. A finished game's result is
GNU Go's own count (issue 46, point 2), and a GNU Go that dies mid-game leaves the game unfinished in
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
from plylab.oracles.gtp import Gtp, action_of, gnugo_path, returns_of, vertex
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


def gnu_gos_count(moves: list[int], size: int = 9, komi: float = 7.5) -> str:
    """GNU Go's own final_score of `moves`, asked of a separate GNU Go through its plain GTP input."""
    plays = [f"play {'black' if i % 2 == 0 else 'white'} {vertex(a, size)}" for i, a in enumerate(moves)]
    script = "\n".join([f"boardsize {size}", "clear_board", f"komi {komi:g}", *plays, "final_score", "quit"])
    out = subprocess.run(
        [str(gnugo_path()), "--mode", "gtp", "--chinese-rules"],
        input=script + "\n",
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    answers = [a.strip() for a in out.split("\n\n") if a.strip()]
    assert not any(a.startswith("?") for a in answers), answers
    return answers[-2].lstrip("= ")  # the last is quit's


@pytest.mark.slow
@needs_gnugo
def test_every_stored_go_result_is_gnu_gos_own_count(cli, tmp_path) -> None:
    """20 seeded 9x9 games of random against GNU Go: every stored winner is the winner of GNU Go's own
    final_score of the same moves (Chinese rules, komi 7.5), where OpenSpiel's count, which keeps
    dead stones on the board, names another winner in some; the report says which rules counted."""
    store = tmp_path / "g.sqlite"
    r = cli(*run_args("go:board_size=9", "random", "gnugo:level=1", games=20, store=store))
    assert r.code == 0, r.err
    s = Store(store, create=False)
    try:
        games = s.games()
        moves = s.moves_for_games([g.id for g in games])
    finally:
        s.close()
    assert len(games) == 20
    naive_differs = 0
    for g in games:
        actions = [m.action for m in moves[g.id]]
        assert None not in actions
        theirs = gnu_gos_count([int(a) for a in actions])
        stored = json.loads(g.returns)
        assert stored == returns_of(theirs), (g.id, stored, theirs)
        assert json.loads(str(g.extra))["scoring"].endswith(f"komi 7.5: {theirs}")
        state = get_game("go:board_size=9").new_state()
        for a in actions:
            state.apply_action(int(a))
        assert state.is_terminal()
        naive_differs += [float(x) for x in state.returns()] != stored
    assert naive_differs > 0  # the case that was wrong: OpenSpiel's count would have named another winner
    report = cli("report", "--store", str(store))
    assert (
        "results: go:board_size=9: 20 games counted by GNU Go 3.8's final_score: Chinese (area) rules, dead "
        "stones removed by GNU Go, komi 7.5" in report.out
    ), report.out


def test_without_gnu_go_the_result_is_openspiels_count_and_says_so(monkeypatch, tmp_path) -> None:
    """Where GNU Go is not installed, a finished game's result is OpenSpiel's naive area count, and
    the rules stored with it say so."""
    monkeypatch.setenv("PLYLAB_GNUGO", str(tmp_path / "absent"))
    game, rng = get_game("go:board_size=9"), random.Random(3)
    state = game.new_state()
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert game.count is not None
    returns, rules = game.count(state)
    assert returns == [float(x) for x in state.returns()]
    assert (
        rules.startswith("OpenSpiel's area count: every stone on the board counted alive")
        and "not installed" in rules
    )


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
