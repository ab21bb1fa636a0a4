"""The human player through a real terminal session: the board, the replies, the result, re-asking on
bad input, and Ctrl-C at the prompt."""

import ctypes
import json
import os
import platform
import re
import signal
import sqlite3
import sys

import pexpect
import pytest

from tests.support.cli import plylab_subprocess, run_args
from tests.support.runs import as_a_background_suite, foreground


@pytest.mark.slow
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


# -- a person at a real terminal (a pseudo-terminal): what they see, and Ctrl-C at the prompt ------


def _terminal(*args: str) -> pexpect.spawn:
    """`plylab ARGS` on a pseudo-terminal, as a person at a keyboard runs it (no --quiet), taking
    Ctrl-C as the foreground job does: a suite run in the background (two at once) passed its
    ignored SIGINT on, and both Ctrl-C tests below waited out their time (they start their child
    as such a suite would, `as_a_background_suite`). Waits are 60 s each."""
    return pexpect.spawn(
        sys.executable,
        ["-m", "plylab", *args],
        env={**os.environ, "COLUMNS": "100", "TERM": "xterm"},
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 100),
        preexec_fn=foreground,
    )


@pytest.mark.slow
def test_a_person_sees_each_board_the_replies_the_end_and_who_won(tmp_path):
    store = tmp_path / "s.sqlite"
    child = _terminal(*run_args("tic_tac_toe", "human", "optimal", games=1, store=store, quiet=False))
    seen = ""
    while child.expect([r"Legal moves: ([^\r\n]+)\r?\n", "Final position:"]) == 0:
        seen += child.before + child.after
        first = child.match.group(1).split(" | ")[0].strip()  # the first legal move, typed as a person would
        child.expect_exact("Your move: ")
        seen += child.before + child.after
        child.sendline(first)
    seen += child.before + child.after
    child.expect(pexpect.EOF)
    seen += child.before
    child.close()
    assert child.exitstatus == 0, seen
    # The board with its coordinates before each move, then the opponent's reply announced.
    assert seen.count("  A B C") >= 3 and "1 . . ." in seen
    assert "O played " in seen
    # The end: the final position, and who won from the person's side (Optimal never loses).
    assert re.search(r"Final position:.*(You lose\.|A draw\.)", seen, re.S), seen
    # No progress bar drawn while a person plays (it would redraw over the prompt).
    assert "━" not in seen and "0/1" not in seen
    assert "run '" in seen and "1/1 game saved" in seen


@pytest.mark.slow
def test_ctrl_c_at_the_move_prompt_stops_at_once_without_saving_half_a_game(tmp_path):
    store = tmp_path / "s.sqlite"
    with as_a_background_suite():
        child = _terminal(*run_args("nim", "human", "random", games=2, store=store, quiet=False))
    child.expect_exact("Your move: ")
    child.sendline("pile 4, take 7")  # one move played, then Ctrl-C at the next prompt
    child.expect_exact("Your move: ")
    child.sendintr()
    child.expect(pexpect.EOF, timeout=60)  # at once; before, it waited for a line for ever
    child.close()
    assert child.exitstatus == 130
    assert "interrupted" in child.before and "Traceback" not in child.before
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0] == 0


@pytest.mark.slow
def test_ctrl_c_handed_to_another_thread_still_stops_the_run(tmp_path):
    """The kernel may hand a process's SIGINT to any of its threads. Sent here to one that is not the
    main one (the prompt's reader, the lease's heartbeat or the progress bar), as that rare delivery
    was: the run used to wait at the prompt for ever, its loop asleep with nothing scheduled."""
    store = tmp_path / "s.sqlite"
    with as_a_background_suite():
        child = _terminal(*run_args("nim", "human", "random", games=2, store=store, quiet=False))
    child.expect_exact("Your move: ")  # the lease's heartbeat runs (the reader's thread may be starting)
    others = [int(t) for t in os.listdir(f"/proc/{child.pid}/task") if int(t) != child.pid]
    assert others, "the run has threads beside its main one"
    number = {"x86_64": 234, "aarch64": 131}.get(platform.machine())  # SYS_tgkill
    if number is None:
        child.kill(signal.SIGKILL)
        pytest.skip(f"tgkill's number on {platform.machine()} is not known here")
    assert ctypes.CDLL(None, use_errno=True).syscall(number, child.pid, others[-1], signal.SIGINT) == 0
    child.expect(pexpect.EOF, timeout=60)
    child.close()
    assert child.exitstatus == 130
    assert "interrupted" in child.before and "Traceback" not in child.before
