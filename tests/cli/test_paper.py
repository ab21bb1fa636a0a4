"""`plylab paper list | run | report` without a language model: the registry, the classic reference
rows, every report format with the paper's numbers, the Clue tables, and one-line bad input."""

from __future__ import annotations

import asyncio
import csv
import inspect
import io
import json

import pytest

from plylab.paper.protocols import PROTOCOLS


def test_list_table_and_json(cli):
    r = cli("paper", "list", "--format", "json")
    assert r.code == 0
    items = json.loads(r.out)
    assert [i["name"] for i in items] == list(PROTOCOLS)
    t3 = next(i for i in items if i["name"] == "table3")
    assert (
        t3["games"] == ["connect_four"]
        and t3["opponents"] == ["random", "mcts"]
        and t3["games_per_matchup"] == 10
    )
    fig5 = next(i for i in items if i["name"] == "fig5")
    assert (fig5["runs"], fig5["epochs"], fig5["learn_games"], fig5["eval_games"]) == (10, 5, 20, 50)
    assert fig5["efforts"] == ["medium"]
    r = cli("paper", "list")
    assert r.code == 0 and "clue-delay" in r.out and "table14" in r.out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("paper", "run", "table99", "--model", "local"), "unknown table or figure 'table99'"),
        (("paper", "run", "table2"), "give --model"),
        (("paper", "run", "table2", "--model", "local", "--runs", "2"), "are for figures"),
        (("paper", "run", "fig5", "--model", "local", "--max-calls", "3"), "apply to table runs"),
        (("paper", "run", "fig5", "--references"), "--references is for tables"),
        (
            ("paper", "run", "table2", "--model", "local", "--player-options", "effort=low"),
            "may not set model= or effort=",
        ),
        (("paper", "report", "table2", "--format", "docx"), "unknown format 'docx'"),
        (("paper", "report", "table7", "--plot", "figs"), "--plot is for figures"),
        (("paper", "report", "clue-deduction", "--plot", "figs"), "a table without a figure"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, tmp_path, args, says):
    r = cli(*args)
    assert r.code == 2, r
    assert says in r.err and len(r.err.strip().splitlines()) == 1, r.err


@pytest.mark.slow
def test_reference_rows_and_every_format(cli, tmp_path):
    store = str(tmp_path / "s.sqlite")
    r = cli("paper", "run", "table7", "--references", "--games", "4", "--store", store, "--quiet")
    assert r.code == 0, r.err
    assert "paper/table7/reference" in r.out
    md = cli("paper", "report", "table7", "--store", store)
    assert md.code == 0
    assert "| GPT-5 nano | paper | 96 | 0 | 4 | 0 | 72 | 0 | 28 | 0 | 44 | 0 | 56 | 0 |" in md.out
    assert "mcts:sims=1000" in md.out and "reference rows" in md.out
    data = json.loads(cli("paper", "report", "table7", "--store", store, "--format", "json").out)
    assert len(data["references"]) == 5 and data["rows"][0]["source"] == "paper"
    tex = cli("paper", "report", "table7", "--store", store, "--format", "latex").out
    assert r"\begin{tabular}" in tex and "% table7:" in tex
    page = cli("paper", "report", "table7", "--store", store, "--format", "html").out
    assert page.startswith("<!doctype html>") and "<td>GPT-5 nano</td><td>paper</td><td>96</td>" in page
    rows = list(
        csv.reader(io.StringIO(cli("paper", "report", "table7", "--store", store, "--format", "csv").out))
    )
    assert ["Model", "source"] == rows[next(i for i, r in enumerate(rows) if r and r[0] == "Model")][:2]
    # the run resumes: nothing new to play
    again = cli("paper", "run", "table7", "--references", "--games", "4", "--store", store, "--quiet")
    assert "0 played now, 20 already there" in again.out or "(0 played now" in again.out


@pytest.mark.slow
def test_clue_tables_render_beside_the_papers_values(tmp_path):
    from plylab.clue.study import RunPlan, run_plan
    from plylab.paper.clue_tables import clue_data, render_clue

    store = tmp_path / "c.sqlite"
    for specs, condition in ((["clue-matrix"] * 6, "matrix"), (["clue-random"] * 6, "baseline")):
        outcome = run_plan(RunPlan(specs, 1, 0, condition=condition), store, progress=False)
        if inspect.isawaitable(outcome):
            asyncio.run(outcome)
    for name in ("clue-accuracy", "clue-deduction", "clue-knowledge", "clue-delay"):
        data = clue_data(store, name)
        conds = [r.row for r in data.rows if r.source == "this run" and " / " not in r.row]
        assert conds == ["baseline", "matrix"], (name, conds)
        text = render_clue(data, "markdown")
        assert "| paper |" in text, name
    acc = clue_data(store, "clue-accuracy")
    matrix = next(r for r in acc.rows if r.row == "matrix")
    assert matrix.paper is not None and matrix.paper["identified"] == {"value": 0.945}
    assert matrix.cells["identified"] is not None
    assert "0.94" in render_clue(acc, "markdown") or "0.945" in render_clue(acc, "markdown")
