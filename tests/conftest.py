"""Shared fixtures (an isolated oracle cache, an in-process CLI runner) and the test lanes.

Lanes are markers: `model` (the local language model or the sentence encoder), `ray`, `browser`,
`slow`. `make check` runs what has none of them; `make test` runs everything. Under CI (CI=true) a
test that would be skipped because Chromium, Ray, Playwright or the plybench side venv is missing
fails instead, so a
broken set-up cannot pass as a green run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest_plugins = ["pytester"]  # tests/core/test_lanes.py runs these hooks in an inner session


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture(scope="session", autouse=True)
def _plylab_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Tests share one cache folder of their own (oracle tables, model files stay where set-up put them):
    one for the whole session, its xdist workers included (each worker's temporary folder lies in the
    session's), so a truth table (Liar's dice's equilibrium) is built once, not once a
    worker; a worker needing a table another is building waits for it (oracles.cachefile.building)."""
    if "PYTEST_XDIST_WORKER" in os.environ:
        shared = tmp_path_factory.getbasetemp().parent / "plylab-cache"
        shared.mkdir(exist_ok=True)
        os.environ.setdefault("PLYLAB_CACHE", str(shared))
    else:
        os.environ.setdefault("PLYLAB_CACHE", str(tmp_path_factory.mktemp("plylab-cache")))


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):
    """Run `plylab ARGS` in-process and return exit code, stdout and stderr."""
    from plylab.cli import main

    def run(*args: str) -> CliResult:
        code = main(list(args))
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@pytest.fixture(scope="session")
def local_model():
    """The real local model (Gemma 3 270M in llama.cpp), loaded once per session."""
    from plylab.models import get_model

    return get_model("local")


# A test file whose every test is in a lane (`pytestmark = pytest.mark.model`, `[pytest.mark.model, ...]`,
# `browser_marks`): a run that leaves that lane out does not import the file at all, so the fast lane
# pays nothing to collect what it never runs (the model, Ray and Playwright imports).
_FILE_LANE = re.compile(
    r"^pytestmark = \[?[^\n]*?(?:pytest\.mark\.(model|ray|browser|slow)\b|\*?(browser)_marks\b)", re.M
)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Skip importing a test file whose module mark puts it in a lane the `-m` expression leaves out."""
    expr = config.getoption("markexpr") or ""
    if collection_path.suffix != ".py" or "not " not in expr:
        return None
    found = _FILE_LANE.search(collection_path.read_text(encoding="utf-8"))
    lane = found and (found.group(1) or found.group(2))
    return True if lane and re.search(rf"\bnot {lane}\b", expr) else None


# Fixtures that load the local model: a test using one belongs to the `model` lane.
MODEL_FIXTURES = {"local_model"}
# Skip reasons that mean a piece of the set-up is missing, not that a test does not apply.
MISSING_SETUP = re.compile(r"\bray\b|chromium|playwright|plybench", re.IGNORECASE)


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if MODEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.model)


def _fail_missing_setup(report: pytest.CollectReport | pytest.TestReport) -> None:
    if not (under_ci() and report.skipped):
        return
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    if MISSING_SETUP.search(reason):
        report.outcome = "failed"
        report.longrepr = f"CI=true: missing set-up is a failure, not a skip: {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    _fail_missing_setup(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    _fail_missing_setup(report)
    return report
