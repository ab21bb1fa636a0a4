"""What a new researcher meets in the first hour (issue 22): the demo leads to its report, a missing
store's message names the stores there, the terminal report says where each row comes from, small
messages say what they did, and the README's example plans are valid."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from plylab.harness.plan import load_plan
from plylab.harness.store import Store
from tests.support.cli import run_args

ROOT = Path(__file__).resolve().parents[2]


def one_line(text: str) -> str:
    return " ".join(text.split())


def cells(line: str) -> list[str]:
    """The cells of a terminal table's line (rich draws the header with heavy bars)."""
    return [c.strip() for c in re.split("[│┃]", line)[1:-1]]


@pytest.mark.model
def test_after_the_demo_a_plain_report_shows_its_games(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    demo = cli("demo", "--games", "1")
    assert demo.code == 0, demo.err
    res = cli("report", "--format", "json")  # no flags: the default store, in the same folder
    assert res.code == 0, res.err
    rows = json.loads(res.out)["matchups"]
    assert {r["run"] for r in rows} == {"demo.s0.n1"}
    assert any(r["player"] == "llm:model=local,output=enum" for r in rows)


@pytest.mark.slow
def test_a_missing_store_names_the_stores_in_its_folder(cli, tmp_path):
    results = tmp_path / "results"
    assert cli(*run_args("nim", games=2, store=results / "demo.sqlite")).code == 0
    assert cli(*run_args("nim", games=2, store=results / "mine.sqlite")).code == 0
    for args in (
        ("report",),
        ("export", str(tmp_path / "g.csv")),
        ("clue", "report"),
    ):
        res = cli(*args, "--store", str(results / "plylab.sqlite"))
        assert res.code == 2 and len(res.err.strip().splitlines()) == 1, res.err
        assert "does not exist" in res.err and "demo.sqlite, mine.sqlite" in res.err, res.err
    # A paper table without a store is the paper's numbers alone (issue 19), and says which stores exist.
    res = cli("paper", "report", "table2", "--store", str(results / "plylab.sqlite"))
    assert res.code == 0 and "the paper's numbers alone: no store at" in res.out, res.err
    assert "demo.sqlite, mine.sqlite" in res.out
    # A folder without stores: how to make one, as before.
    res = cli("report", "--store", str(tmp_path / "empty" / "plylab.sqlite"))
    assert res.code == 2 and "run `plylab run ... --store" in res.err


def _two_runs_of_one_matchup(cli, store: Path) -> None:
    for name in ("first", "second"):
        args = run_args("tic_tac_toe", "random", "optimal", games=4, store=store)
        assert cli(*args, "--run", name).code == 0
    s = Store(store)
    try:  # the second run stopped early, as Ctrl-C leaves it
        [second] = s.runs("second")
        s.finish_run(second.id, "interrupted")
    finally:
        s.close()


@pytest.mark.slow
def test_report_rows_name_their_run_and_an_unfinished_runs_status(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    _two_runs_of_one_matchup(cli, store)
    res = cli("report", "--store", str(store))
    assert res.code == 0, res.err
    lines = [line for line in res.out.splitlines() if "random" in line and "optimal" in line]
    assert len(lines) == 2 and lines[0] != lines[1]
    assert cells(lines[0])[0] == "first" and cells(lines[1])[0] == "second (interrupted)"
    header = cells(res.out.splitlines()[1])
    assert header[0] == "run" and "clustered 95%" in header
    rows = json.loads(cli("report", "--store", str(store), "--format", "json").out)["matchups"]
    assert [(r["run"], r["status"]) for r in rows] == [("first", "finished"), ("second", "interrupted")]
    # The pivot layouts keep both: two rows, not one cell written twice.
    pivot = json.loads(cli("report", "--store", str(store), "--table", "optimality", "--format", "json").out)
    assert len(pivot["rows"]) == 2 and {r["setting"].split(" / ")[-1] for r in pivot["rows"]} == {
        "first",
        "second (interrupted)",
    }


def test_one_finished_run_has_no_run_column_and_shows_the_clustered_interval(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("tic_tac_toe", "random", "optimal", games=6, store=store)).code == 0
    res = cli("report", "--store", str(store))
    header = cells(res.out.splitlines()[1])
    assert header[0] == "game" and "run" not in header
    [row] = [cells(line) for line in res.out.splitlines() if "random" in line]
    [est] = json.loads(cli("report", "--store", str(store), "--format", "json").out)["matchups"]
    low, high = est["optimality"]["cluster_low"], est["optimality"]["cluster_high"]
    assert low is not None and low <= est["optimality"]["rate"] <= high
    shown = row[header.index("clustered 95%")]
    assert [float(x) for x in shown.strip("[]").split(",")] == pytest.approx([low, high], abs=5e-4)


def test_the_learning_report_of_a_store_without_learning_runs_says_so(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("nim", games=2, store=store)).code == 0
    res = cli("report", "--learning", "--store", str(store))
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1
    assert f"no learning runs in {store}" in res.err and "1 other run" in res.err


def test_latex_says_every_file_it_wrote(cli, tmp_path):
    store, out = tmp_path / "s.sqlite", tmp_path / "tex"
    assert cli(*run_args("tic_tac_toe", "random", "optimal", games=2, store=store)).code == 0
    res = cli("report", "--store", str(store), "--latex", str(out))
    assert res.code == 0, res.err
    written = {p.name for p in out.iterdir()}
    assert len(written) > 1 and "tables.tex" in written
    said = set(re.findall(r"[\w.-]+\.tex", res.out))
    assert said == written, res.out


def test_paper_run_help_says_references_alone_play_only_the_reference_rows(cli):
    res = cli("paper", "run", "--help")
    assert res.code == 0
    assert "without --model, only those rows are played" in one_line(res.out)


def test_the_example_plans_are_valid_and_the_small_one_is_small():
    small = load_plan(ROOT / "examples" / "plan.yaml")
    full = load_plan(ROOT / "examples" / "plan-full.yaml")
    assert set(small.matchups) < set(full.matchups)  # part of the same grid, fewer games
    assert (small.planned, full.planned) == (24, 2000)
    readme = (ROOT / "README.md").read_text()
    manual = (ROOT / "docs" / "getting-started.md").read_text()
    for text in (readme, manual):
        assert "plylab run --config examples/plan.yaml" in text and "examples/plan-full.yaml" in text
    # The README's quick tour and the manual's tour: one MCTS spelling, and every run says its games.
    tours = [readme.split("## Quick tour", 1)[1].split("\n## ", 1)[0], manual.split("## A short tour", 1)[1]]
    for tour in tours:
        spellings = set(re.findall(r"mcts(?::[\w=,]+)?", tour.split("```yaml", 1)[0]))
        assert spellings == {"mcts:sims=1000"}, spellings
        for command in re.findall(r"^plylab run [^\n#]*", tour, re.M):
            assert "--games" in command or "--config" in command, command
