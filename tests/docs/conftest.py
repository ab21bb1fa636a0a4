"""The manual built once per test module: `mkdocs build --strict`, as `make docs` runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def build(out: Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` into `out`, as `make docs` runs it (a broken link or page fails it);
    from `cwd`, naming the repository's mkdocs.yml."""
    config = ["--config-file", str(ROOT / "mkdocs.yml")]
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", *config, "--site-dir", str(out)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("manual") / "site"
    done = build(out)
    assert done.returncode == 0, done.stdout + done.stderr
    return out
