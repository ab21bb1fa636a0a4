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


def test_a_paper_page_sets_commands_as_code_not_in_literal_backticks(
    capsys: pytest.CaptureFixture[str], tmp_path, monkeypatch
) -> None:
    from plylab.reports.papers import styled_body

    monkeypatch.chdir(tmp_path)
    assert main(["paper", "report", "table3", "--format", "html"]) == 0
    html = capsys.readouterr().out
    assert "`plylab paper run table3 --references`" in html  # the terminal's text, as the report writes it
    body = str(styled_body(html))
    assert "`" not in body
    assert (
        '<h2 class="paper-head">reference rows: none yet; <code>plylab paper run table3 --references</code>'
        in body
    )
