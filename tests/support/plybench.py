"""The first paper's own package (PyPI `plybench` 3.0.5) in its side venv, for tests that compare
plylab with it. plybench needs Python >= 3.12, so it lives in a side venv (`make plybench` builds
`.plybench-venv`; `PLYBENCH_PYTHON` names another interpreter that has it) and is run there in a
subprocess. Where neither is found, `SKIP` skips the tests with that line."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from plylab.jsontypes import JSONValue

ROOT = Path(__file__).resolve().parents[2]


def plybench_python() -> str | None:
    """The side venv's interpreter, if it has plybench 3.0.5."""
    given = os.environ.get("PLYBENCH_PYTHON")
    candidate = Path(given) if given else ROOT / ".plybench-venv" / "bin" / "python"
    if not candidate.is_file():
        return None
    probe = subprocess.run(
        [str(candidate), "-c", "import importlib.metadata as m; print(m.version('plybench'))"],
        capture_output=True,
        text=True,
    )
    return str(candidate) if probe.returncode == 0 and probe.stdout.strip() == "3.0.5" else None


PLYBENCH = plybench_python()
SKIP = pytest.mark.skipif(
    PLYBENCH is None, reason="no plybench 3.0.5 side venv (make plybench builds one; or set PLYBENCH_PYTHON)"
)


def in_plybench(script: str, payload: JSONValue) -> JSONValue:
    """Run `script` in the side venv with `payload` as JSON on stdin; its stdout read as JSON."""
    assert PLYBENCH is not None
    done = subprocess.run(
        [PLYBENCH, "-c", script], input=json.dumps(payload), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    result: JSONValue = json.loads(done.stdout)
    return result
