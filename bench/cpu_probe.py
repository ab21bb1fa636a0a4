"""A pytest plugin that measures each test's CPU time, for deciding what the fast lane marks `slow`.

Wall time on this project's shared two-core machine moves several-fold with the load; CPU time (the
test's process and the children it waited for) moves far less, so it ranks tests fairly. Run the
fast lane serially with it and sort the table it writes:

    PYTHONPATH=bench CPU_PROBE_OUT=/tmp/cpu.tsv python -m pytest -q -p cpu_probe -p no:cacheprovider \\
        -m "not model and not ray and not browser and not slow"
    sort -t$'\\t' -k2 -nr /tmp/cpu.tsv | head -40

Each line: the test's node id, its CPU seconds, its wall seconds (tab-separated, appended).
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Generator

import pytest

_rows: list[tuple[str, float, float]] = []


def _cpu() -> float:
    """User and system seconds of this process and of the children it has waited for."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    cpu, wall = _cpu(), time.perf_counter()
    yield
    _rows.append((item.nodeid, _cpu() - cpu, time.perf_counter() - wall))


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = os.environ.get("CPU_PROBE_OUT")
    if out:
        with open(out, "a", encoding="utf-8") as f:
            f.writelines(f"{node}\t{cpu:.3f}\t{wall:.3f}\n" for node, cpu, wall in _rows)
