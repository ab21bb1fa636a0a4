"""A CSV cell that is a number stays a number, with what the tables print beside it (an interval, its
n, a mark); text a spreadsheet would run as a formula still gets its leading quote."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from plylab.cells import cell


@pytest.mark.parametrize(
    "text",
    [
        "-0.400",
        "-0.200 [-0.400, +0.000]",
        "-0.400 (n=1)",
        "+0.307",
        "-0.400 (n=1)†",
        "-0.250 [-0.5, -0.1] ≠",
        "-0.5 (4)",
    ],
)
def test_a_negative_estimate_is_written_as_written(text: str) -> None:
    assert cell(text) == text


@pytest.mark.parametrize(
    "text",
    ["-2+3+cmd|x", "-0.4 (n=1) cmd|x", "-0.4 [1, 2]+cmd|x", "-0.5 (4) HYPERLINK(x)", "=1+1", "@SUM(A1)"],
)
def test_a_formula_after_a_number_is_still_guarded(text: str) -> None:
    assert cell(text) == "'" + text


def test_a_suite_reports_pair_differences_in_csv_as_numbers(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pairs table wrote "'-0.200 [-0.400, +0.000]": a spreadsheet showed the quote."""
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "s.sqlite"
    assert cli("suite", "build", "t", "--game", "tic_tac_toe", "--positions", "10").code == 0
    ran = cli(
        "suite", "run", "t", "--player", "random", "--player", "mcts:sims=20", "--store", str(store), "-q"
    )
    assert ran.code == 0, ran.err
    out = cli("suite", "report", "--store", str(store), "--format", "csv").out
    cells = [c for row in csv.reader(io.StringIO(out)) for c in row]
    signed = [c for c in cells if c.lstrip("'")[:1] in "+-" and c.lstrip("'")[1:2].isdigit()]
    assert signed and not any(c.startswith("'") for c in signed), cells
