"""`inspect view` served by inspect's own command over a folder of logs, for the browser tests."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.ports import free_port


@contextmanager
def inspect_view(logs: Path) -> Iterator[str]:
    """`inspect view --log-dir LOGS` on a free local port, up to 30 s to start; yields its URL."""
    inspect = shutil.which("inspect", path=str(Path(sys.executable).parent))
    assert inspect, "inspect_ai's `inspect` command is installed with plylab"
    port = free_port()
    proc = subprocess.Popen(
        [inspect, "view", "--log-dir", str(logs), "--recursive", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("inspect view did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def samples_shown(sync_api: Any, page: Any, count: int, text: str) -> Any:
    """Wait until a log's `count` samples are listed, `text` among them. The viewer shows its list,
    then "Loading log…", then the samples: wait on the page's text (expect retries), not on an
    element of the state before."""
    body = sync_api.expect(page.locator("body"))
    body.to_contain_text(f"{count} Samples", timeout=60_000)
    body.to_contain_text(text, timeout=60_000)
    return body
