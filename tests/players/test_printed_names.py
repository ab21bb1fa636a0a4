"""One name everywhere: a run name plylab made from the specs as given prints them canonically
(`solve=off` as `solve=false`, as every table writes the player), while the store keeps the name
it made, so old stores still resume by it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from plylab.players.canonical import printed_run_name
from tests.support.cli import run_args


def test_made_names_print_their_specs_canonically_and_given_names_as_given() -> None:
    assert (
        printed_run_name("tic_tac_toe.standard.mcts:solve=off,sims=20-vs-random.s0.n2")
        == "tic_tac_toe.standard.mcts:sims=20,solve=false-vs-random.s0.n2"
    )
    agent = "reaper:model=local,force_final=on"
    assert (
        printed_run_name(f"learn.tic_tac_toe.standard.{agent}-vs-optimal.s0/run1/eval2")
        == "learn.tic_tac_toe.standard.reaper:model=local,force_final=true-vs-optimal.s0/run1/eval2"
    )
    for given in ("ttt-llm", "paper/003/gpt-5-nano", "a.b.c-vs-d"):
        assert printed_run_name(given) == given


def test_report_prints_a_runs_name_with_canonical_specs(tmp_path: Path, cli) -> None:
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("tic_tac_toe", "mcts:sims=20,solve=off", "random", games=2, store=store)).code == 0
    assert cli(*run_args("tic_tac_toe", "random", "random", games=2, store=store)).code == 0
    (stored,) = (n for (n,) in sqlite3.connect(store).execute("SELECT name FROM runs") if "mcts" in n)
    assert "solve=off" in stored, "the store keeps the name it made"
    for fmt in ("table", "csv", "markdown", "latex"):  # JSON's `run` is the stored key, for machines
        out = cli("report", "--store", str(store), "--format", fmt).out.replace(r"\_", "_")
        assert "solve=false" in out and "solve=off" not in out, fmt

    # the name as printed (copied from the table) selects the run, as the stored one does
    shown = printed_run_name(stored)
    for name in (stored, shown):
        out = cli("report", "--store", str(store), "--run", name, "--format", "csv")
        assert out.code == 0 and "mcts:sims=20" in out.out and "random,random" not in out.out, name
        logs = tmp_path / f"logs-{name == shown}"
        assert cli("export", str(logs), "--format", "inspect", "--store", str(store), "--run", name).code == 0
        assert len(list(logs.rglob("*.eval"))) == 1
