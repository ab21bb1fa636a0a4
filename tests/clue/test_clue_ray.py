"""`plylab clue run --backend ray`: bot-only Clue games on Ray report exactly as on the local backend.

One Ray start-up for the module: the ray run starts a local instance under the run's folder and
stops it at the end.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import plylab_subprocess

pytestmark = pytest.mark.ray

SEATS = ["clue-oracle", "clue-matrix", *["clue-random"] * 4]
PLAN = [arg for spec in SEATS for arg in ("--player", spec)] + ["--games", "3", "--seed", "1", "--quiet"]


def plylab(*args: str, cwd: Path | None = None, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return plylab_subprocess(*args, cwd=cwd, timeout=timeout)


@pytest.fixture(scope="module")
def runs() -> Iterator[tuple[Path, subprocess.CompletedProcess[str]]]:
    """The same plan once with `--backend ray --store S1` and once with `--backend local --store S2`."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("the ray extra is not installed")
    with tempfile.TemporaryDirectory(prefix="pl-") as short:  # Ray's socket paths live under it
        folder = Path(short)
        ray_run = plylab("clue", "run", *PLAN, "--backend", "ray", "--store", "S1", cwd=folder)
        assert ray_run.returncode == 0, ray_run.stderr
        local_run = plylab("clue", "run", *PLAN, "--backend", "local", "--store", "S2", cwd=folder)
        assert local_run.returncode == 0, local_run.stderr
        yield folder, ray_run


def report(folder: Path, store: str) -> Any:
    r = plylab("clue", "report", "--store", store, "--format", "json", cwd=folder)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data.pop("store") == store  # the only field allowed to differ
    return data


@pytest.mark.timeout(300)
def test_clue_on_ray_reports_like_local(runs: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    folder, ray_run = runs
    assert ray_run.stdout.startswith("clue run 'custom/seed1/") and "(3 played now" in ray_run.stdout
    assert not (folder / ".ray").exists(), "the local Ray instance left its temporary files"
    leftover = subprocess.run(["pgrep", "-f", str(folder)], capture_output=True, text=True).stdout.split()
    assert leftover == [], "processes of the local Ray instance are still running"
    on_ray, here = report(folder, "S1"), report(folder, "S2")
    assert on_ray["groups"] and on_ray == here
