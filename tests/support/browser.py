"""Headless Chromium for the site's browser tests: the system browser (no download), a page that
fails its test on any script error or any request that leaves the disk."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

browser_marks = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason=f"no system Chromium at {CHROMIUM} (make browser installs it)"
    ),
]


@contextmanager
def chromium() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@contextmanager
def checked_page(browser: Any) -> Iterator[Any]:
    """A 1280 px page; leaving the block fails on a script error or a network request."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: r.url.startswith("file://") or errors.append(f"network request: {r.url}"))
    yield page
    page.close()
    assert not errors


def open_file(page: Any, path: Path, fragment: str = "") -> None:
    page.goto(path.resolve().as_uri() + fragment)
    page.wait_for_load_state("load")
