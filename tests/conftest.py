"""Shared fixtures: an isolated oracle cache and a CLI runner that captures output in-process."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture(scope="session", autouse=True)
def _plylab_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Tests share one cache folder of their own (oracle tables, model files stay where set-up put them)."""
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

