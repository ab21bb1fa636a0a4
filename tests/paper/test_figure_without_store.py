"""A paper figure's report without a store prints the paper's numbers, not an empty table."""

from __future__ import annotations

import pytest

from plylab.cli import main


def test_fig5_without_a_store_prints_the_papers_numbers_and_no_empty_header(
    capsys: pytest.CaptureFixture[str], tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no results/plylab.sqlite here
    assert main(["paper", "report", "fig5"]) == 0
    out = capsys.readouterr().out
    assert "0.818" in out and "0.868" in out  # Baseline's and REAPER's published draw rates (003 l.186)
    assert "| experiment |" not in out  # the reproduced table, which has no rows yet
