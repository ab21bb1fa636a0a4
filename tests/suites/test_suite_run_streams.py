"""`suite run` streams its work as `run` does: however many answers it asks for (`--repeats
1000000000`), its jobs are made as they are drawn, so it starts at once with flat memory and stops
cleanly on Ctrl-C; and the suite's hash, which every job's key and seed name, is computed once."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
import tracemalloc
from itertools import islice
from pathlib import Path

import pytest

import plylab.suites.file as suite_file
from plylab.suites.build import build_suite
from plylab.suites.file import read_suite
from plylab.suites.study import SuiteStudy

ROOT = Path(__file__).resolve().parents[2]
CAP = 3 * 2**30  # address space: the billion jobs listed first would need about 20 GB


def test_the_suite_plan_is_drawn_lazily_with_flat_memory(tmp_path: Path) -> None:
    suite = build_suite("t", "tic_tac_toe", 3, seed=1)
    tracemalloc.start()
    try:
        study = SuiteStudy(suite, ["random", "optimal"], repeats=100_000)
        jobs = study.jobs()
        first = list(islice(jobs, 1000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert study.planned == 600_000 and len(first) == 1000
    assert [(j.position.index, j.repeat, j.player) for j in first[:3]] == [
        (0, 0, "random"),
        (0, 0, "optimal"),
        (0, 1, "random"),
    ]
    assert peak < 8 * 2**20, f"{peak / 2**20:.0f} MiB to draw 1,000 of 600,000 jobs"


def _answers(store: Path) -> int:
    if not store.exists():  # never made by this probe: the run makes it
        return 0
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM suite_answers").fetchone()[0])
    except sqlite3.OperationalError:  # its tables not made yet, or the writer holds it
        return 0


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS caps the address space on Linux")
def test_suite_run_of_a_billion_repeats_starts_at_once_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    suite = tmp_path / "t.jsonl"
    build_suite("t", "tic_tac_toe", 3, seed=1).write(suite)
    store = tmp_path / "s.sqlite"
    argv = [sys.executable, "-m", "plylab", "suite", "run", str(suite), "--player", "random",
            "--repeats", "1000000000", "--store", str(store), "-q"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_cap
    )
    deadline = time.monotonic() + 240  # a bound on a hang, not a measured time
    while proc.poll() is None and time.monotonic() < deadline and _answers(store) < 50:
        time.sleep(0.2)
    still_running = proc.poll() is None
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert still_running, f"the run ended before it was interrupted: {err[-2000:]}"
    assert _answers(store) >= 50, err[-2000:]
    assert proc.returncode == 130 and "Traceback" not in err and "MemoryError" not in err, err[-2000:]
    assert "interrupted" in out and "/3,000,000,000 answers saved" in out, out
    with sqlite3.connect(store) as conn:
        (status,) = conn.execute("SELECT status FROM runs").fetchone()
    assert status == "interrupted"


def test_the_suite_hash_is_computed_once_however_many_jobs_name_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.jsonl"
    build_suite("t", "tic_tac_toe", 100, seed=2).write(path)
    suite, _ = read_suite(str(path))
    calls = 0
    real = suite_file.digest

    def counted(text: str) -> str:
        nonlocal calls
        calls += 1
        return real(text)

    monkeypatch.setattr(suite_file, "digest", counted)
    jobs = list(SuiteStudy(suite, ["random", "optimal"]).jobs())
    assert len(jobs) == 200
    assert calls == 0, f"{calls} hashes of positions or of the suite to make 200 jobs"
