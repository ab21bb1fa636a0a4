"""A language model against the Kuhn poker equilibrium on the site, in headless Chromium: the local
model (constrained to the legal moves, so it always answers) leaves no reasoning trace, so the
matchup's page plots its loss, and no page prints the paper's recognition or optimality figure as a
row of dashes ("Recognition rate – (0/n traced)")."""

from __future__ import annotations

from pathlib import Path

import pytest

from plylab.cli import main
from tests.support.browser import browser_marks, checked_page, chromium, open_file

pytestmark = [*browser_marks, pytest.mark.model]

LOCAL = "llm:model=local,output=enum,temperature=0,max_tokens=24"


@pytest.fixture(scope="module")
def llm_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("graded-llm")
    store = str(root / "s.sqlite")
    play = ["run", "--game", "kuhn_poker", "--player", LOCAL, "--opponent", "equilibrium", "--games", "4"]
    assert main([*play, "--store", store, "--run", "kuhn-llm", "-q"]) == 0
    assert main(["report", "--store", store, "--html", str(root / "site")]) == 0
    return root / "site"


def test_an_llm_kuhn_matchup_shows_its_loss_and_no_empty_paper_figure(llm_site: Path) -> None:
    with chromium() as browser, checked_page(browser) as page:
        open_file(page, llm_site / "runs" / "run-1.html")
        text = page.locator("main").inner_text()
        assert "Recognition rate" not in text and "Optimality rate by formulation" not in text
        assert "Output tokens per move" in text  # a paper figure a model's run does define
        href = page.locator("table[data-table=matchups] tbody a").first.get_attribute("href")
        open_file(page, llm_site / "runs" / href)
        chart = page.locator("#by-move svg.chart.loss")
        assert chart.count() == 1 and int(chart.get_attribute("data-bars")) > 0
        open_file(page, llm_site / "index.html")
        assert page.locator("section#equilibrium table[data-table=equilibrium-table] tbody tr").count() == 1
