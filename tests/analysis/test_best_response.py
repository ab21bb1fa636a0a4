"""`best_response:run=`: a run named by its name or its id, and a refusal that names the runs there
and leaves no run of its own behind."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.support.cli import run_args

# The made name holds the player's comma, which ends a spec's value: only the id can name this run.
COMMA_RUN = "kuhn_poker.standard.mcts:sims=10,solve=false-vs-equilibrium.s0.n4"


def _runs(store: Path) -> list[tuple[int, str, str]]:
    with sqlite3.connect(store) as conn:
        return list(conn.execute("SELECT id, name, status FROM runs ORDER BY id"))


def test_a_best_response_names_its_run_by_id_and_a_refusal_leaves_no_run(cli, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    assert (
        cli(*run_args("kuhn_poker", "mcts:sims=10,solve=false", "equilibrium", games=4, store=store)).code
        == 0
    )
    assert cli(*run_args("tic_tac_toe", "random", "random", games=1, store=store)).code == 0
    before = _runs(store)
    assert before[0][:2] == (1, COMMA_RUN)
    listed = f"runs of 'kuhn_poker' here (run=<id> or run=<name>): 1 '{COMMA_RUN}'"
    for run, says in [
        ("nosuchrun", "no run 'nosuchrun' in"),
        ("2", "run 2 'tic_tac_toe.standard.random-vs-random.s0.n1' has no games of 'kuhn_poker' (it played: tic_tac_toe)"),
    ]:  # fmt: skip
        got = cli(*run_args("kuhn_poker", f"best_response:run={run}", "random", games=1, store=store))
        assert got.code == 2 and says in got.err and listed in got.err, got.err
        assert "players" not in got.err and "Traceback" not in got.err  # not "has 0 players ... to="
        assert _runs(store) == before  # refused before its run was written
    played = cli(*run_args("kuhn_poker", "best_response:run=1", "random", games=2, store=store))
    assert played.code == 0, played.err
    assert _runs(store)[-1][1:] == ("kuhn_poker.standard.best_response:run=1-vs-random.s0.n2", "finished")
