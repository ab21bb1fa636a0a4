"""One rule for printing an interval (issue 30, point 5): from at least two independent units and
with width, else the estimate and its n. Every table formats estimates through stats.estimate_text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from plylab.analysis import learning
from plylab.analysis.results import Mean, Rate
from plylab.analysis.stats import cluster_bootstrap, student_t, wilson
from plylab.analysis.tables import interval_cell, mean_cell, payoff_cell, rate_cell
from plylab.cli import main
from plylab.paper import figures
from plylab.paper.report import estimated, show
from tests.support.cli import run_args


def _typed_mean(values: list[float]) -> Mean:
    return Mean.of(student_t(values))


def test_the_rule_prints_n_where_an_interval_cannot_hold() -> None:
    from plylab.analysis.stats import estimate_text

    num = "{:.2f}".format
    assert estimate_text(0.5, 0.5, 0.5, 1, num) == "0.50 (n=1)"
    assert estimate_text(5.0, 5.0, 5.0, 2, num) == "5.00 (n=2)"  # two units that agree: no width
    assert estimate_text(0.5, 0.2, 0.8, 2, num) == "0.50 [0.20, 0.80]"


def test_learning_with_one_run_prints_its_n_not_a_point_interval() -> None:
    """`report --learning` with one run printed "0.500 [0.500, 0.500]"."""
    assert learning._cell(student_t([0.5])) == "0.500 (n=1)"
    assert learning._cell(student_t([0.25, 0.75])).startswith("0.500 [")
    assert learning._recall_cell(wilson(1, 1)) == "1.000 (n=1)"


def test_paper_table3_prints_both_columns_by_the_same_rule() -> None:
    """`paper report table3` printed "5.00 [5.00, 5.00]" beside "6.00 (n=2)"."""
    agree, differ = _typed_mean([5.0, 5.0]), _typed_mean([5.0, 7.0])
    cells = [show(estimated(moves, "moves"), "moves") for moves in (agree, differ)]
    assert cells == ["5.00 (n=2)", "6.00 (n=2)"]
    assert figures._est(student_t([0.5, 0.5, 0.5])) == "0.500 (n=3)"


def test_report_cells_follow_the_rule() -> None:
    assert mean_cell(_typed_mean([12.0])) == "12.0 (n=1)"  # was "12.0 ±0.0"
    assert mean_cell(_typed_mean([10.0, 14.0])).startswith("12.0 [")  # was "12.0 ±25.4": one form
    assert payoff_cell(_typed_mean([1.0, 1.0])) == "+1.00 (n=2)"
    assert rate_cell(wilson(1, 1)) == "1.00 (n=1)"
    assert rate_cell(wilson(3, 4)) == ".750 [.301, .954]"
    one_game = cluster_bootstrap([(4, 4)])
    assert interval_cell(Rate(1.0, 1.0, 1.0, 4, one_game.low, one_game.high)) == "–"


def test_a_one_game_store_prints_no_clustered_interval(tmp_path: Path, capsys) -> None:
    store = tmp_path / "s.sqlite"
    assert main(run_args("tic_tac_toe", "optimal", "random", games=1, store=store)) == 0
    capsys.readouterr()
    assert main(["report", "--store", str(store), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header, rows = lines[0].split(","), [line for line in lines[1:] if line.startswith("tic_tac_toe")]
    optimal = next(r for r in rows if ",optimal,random," in r)
    assert "[1.00, 1.00]" not in optimal  # one game: the clustered bootstrap has nothing to resample
    assert main(["report", "--store", str(store), "--format", "json"]) == 0
    row = next(r for r in json.loads(capsys.readouterr().out)["matchups"] if r["player"] == "optimal")
    assert row["optimality"]["cluster_low"] == row["optimality"]["cluster_high"]  # the data keep the numbers
    assert header[0] == "game"


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_the_site_follows_the_rule_on_a_one_game_store(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    assert main(run_args("tic_tac_toe", "optimal", "random", games=1, store=store)) == 0
    assert main(["report", "--store", str(store), "--html", str(tmp_path / "site")]) == 0
    index = (tmp_path / "site" / "index.html").read_text()
    assert "95% interval clustered by game: – ·" in index and "[1.000, 1.000]" not in index


def test_a_counts_interval_never_reads_below_zero() -> None:
    """Tokens per move over moves of 0, 0 and 600 tokens: Student-t's interval reaches below zero
    ("200.0 [-545.5, 945.5]"); a count's is clipped there, in the results every report reads."""
    from plylab.analysis.metrics import _count_mean
    from plylab.analysis.stats import Moments, bounded, student_t_moments

    m = Moments()
    for tokens in (0.0, 0.0, 600.0):
        m.add(tokens)
    assert (student_t_moments(m).low or 0.0) < 0  # the bare interval does
    tokens = _count_mean(m)
    assert tokens.low == 0.0 and tokens.high == student_t_moments(m).high
    assert mean_cell(tokens).startswith("200.0 [0.0, ")
    assert bounded(student_t([0.2, 0.9]), 0.0, 1.0).high == 1.0  # and a rate's never above one


def test_the_chess_table_follows_the_rule() -> None:
    """`7.0 [7.0, 7.0] in 1/2 games`: one game with a blunder is n=1, not a point interval."""
    from plylab.analysis import chess

    assert chess._mean(_typed_mean([7.0])) == "7.0 (n=1)"
    assert chess._mean(_typed_mean([5.0, 9.0])).startswith("7.0 [")
    assert chess._rate(wilson(0, 0)) == "–" and chess._rate(wilson(1, 1)) == "1.000 (n=1)"


def test_the_equilibrium_table_follows_the_rule(tmp_path: Path, capsys) -> None:
    """The equilibrium table printed `+1.000 [+1.000, +1.000]` where the main table printed
    `+1.00 (n=40)`: one game here, so every figure prints its n, none a zero-width interval."""
    store = tmp_path / "s.sqlite"
    assert main(run_args("kuhn_poker", "random", "random", games=1, store=store)) == 0
    capsys.readouterr()
    assert main(["report", "--store", str(store), "--table", "equilibrium", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    header, row = (
        out.splitlines()[0].split(","),
        next(r for r in out.splitlines()[1:] if ",kuhn_poker," in r),
    )
    assert "(n=1)" in row  # the payoff of one game
    for low_high in re.findall(r"\[([-+.\d]+), ([-+.\d]+)\]", row):
        assert low_high[0] != low_high[1], row  # no zero-width interval anywhere in the row
    assert header[:3] == ["run", "game", "formulation"]
