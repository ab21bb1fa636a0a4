"""`report --html` made from another directory than the suite run's still draws each suite's page (its
file is found beside the store), and the Suites section prints no heading over an empty table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest


def test_a_site_made_elsewhere_keeps_the_suite_pages_and_no_empty_heading(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It dropped the suite pages (the file looked up from the working directory) and kept a heading
    ("Suites: Clue deductions") over "Nothing to show." for a game's suite."""
    here, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    store = here / "s.sqlite"
    monkeypatch.chdir(here)
    assert cli("suite", "build", "t", "--game", "tic_tac_toe", "--positions", "4").code == 0
    assert (
        cli(
            "suite", "run", "t", "--player", "random", "--player", "mcts:sims=20", "--store", str(store), "-q"
        ).code
        == 0
    )
    monkeypatch.chdir(elsewhere)
    res = cli("report", "--store", str(store), "--html", "site")
    assert res.code == 0, res.err
    index = (elsewhere / "site" / "index.html").read_text()
    assert 'href="suites/1.html"' in index and (elsewhere / "site" / "suites" / "1.html").is_file()
    section = index[index.index('<section id="suites">') :]
    section = section[: section.index("</section>")]
    assert "Nothing to show." not in section and "Clue deductions" not in section, section
    assert re.search(r'<h3 id="suite-pairs">', section)  # the tables with rows are all there
