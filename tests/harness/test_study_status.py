"""Every study records its status (issue 21 point 1): a Clue run as a game plan does, a learning
phase interrupted mid-way says `interrupted` (not `running`), `paper run` of a Clue table stops on
Ctrl-C with exit 130 instead of starting the next condition."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

import pytest

from tests.support.runs import no_run_outlives_its_test, plylab, stop, wait_for_games  # noqa: F401

SEATS = [*["-p", "clue-random"] * 3]


def clue_status(store: Path) -> list[tuple[str, str | None]]:
    with sqlite3.connect(store) as conn:
        sql = "SELECT json_extract(plan, '$.condition'), status FROM runs WHERE kind = 'clue' ORDER BY id"
        return conn.execute(sql).fetchall()


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_a_clue_run_records_finished(cli, tmp_path: Path) -> None:
    store = tmp_path / "c.sqlite"
    assert cli("clue", "run", *SEATS, "--games", "1", "--store", str(store), "-q").code == 0
    assert clue_status(store) == [("custom", "finished")]


@pytest.mark.slow
def test_paper_run_of_a_clue_table_stops_on_ctrl_c_with_130(tmp_path: Path) -> None:
    """The first condition is interrupted; the command ends there (it used to start the next one, exit 0)."""
    store = tmp_path / "c.sqlite"
    proc = plylab(
        "paper", "run", "clue-accuracy", "--model", "local", "--games", "50", "--store", str(store), "-q"
    )
    wait_for_games(proc, store, 1, table="runs", timeout=300)  # the first condition has started
    out, err = stop(proc, signal.SIGINT)  # whatever it does then (a model loading: test_local_stop)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and len(out.strip().splitlines()) == 1 and "interrupted" in out
    assert [status for _, status in clue_status(store)] == ["interrupted"]  # no second condition started


@pytest.mark.slow
@pytest.mark.model
def test_an_interrupted_learning_phase_is_marked_interrupted(tmp_path: Path) -> None:
    store = tmp_path / "l.sqlite"
    agent = "reaper:model=local,max_tokens=48,iterations=1,k=4,answer=legal,force_final=on"
    proc = plylab(
        "learn", "--game", "tic_tac_toe", "--player", agent, "--opponent", "optimal", "--runs", "1",
        "--epochs", "1", "--learn-games", "40", "--eval-games", "1", "--store", str(store), "-q",
    )  # fmt: skip
    wait_for_games(proc, store, 2, timeout=600)  # the evaluation game, then a learning game
    out, err = stop(proc, signal.SIGINT)
    assert proc.returncode == 130, err
    assert "learning '" in out and "interrupted" in out
    with sqlite3.connect(store) as conn:
        phases = dict(conn.execute("SELECT name, status FROM runs").fetchall())
    assert {name.rsplit("/", 1)[1]: status for name, status in phases.items()} == {
        "eval0": "finished",
        "learn1": "interrupted",
    }
