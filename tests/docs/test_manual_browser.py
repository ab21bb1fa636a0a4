"""The built manual in headless Chromium (the system browser, as the site's browser tests): its index
and a generated reference page open from disk with no script error and no request off the disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.browser import browser_marks, checked_page, chromium, open_file

pytestmark = browser_marks


def heading(page: Any, selector: str) -> str:
    """A heading's text without its permalink sign."""
    return str(page.locator(selector).first.inner_text()).rstrip("¶").strip()


def test_the_index_and_the_player_reference_open_from_disk(manual: Path) -> None:
    with chromium() as browser, checked_page(browser) as page:
        open_file(page, manual / "index.html")
        assert page.title().startswith("plylab")
        assert heading(page, "article h1") == "plylab"
        assert page.locator("article a", has_text="Ground truth").count() >= 1
        assert page.locator("article h2", has_text="Find your question").count() == 1

        open_file(page, manual / "reference" / "players.html")
        assert heading(page, "article h1") == "Player specs"
        llm = page.locator("#player-llm")
        assert llm.count() == 1
        keys = llm.locator("xpath=following::table[1]").inner_text()
        assert "output" in keys and "text|json|enum" in keys and "on_provider_failure" in keys
