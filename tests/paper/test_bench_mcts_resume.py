"""The MCTS comparison bench (bench/bench_paper_mcts.py) grows a saved run to a larger one exactly.

Its 1000-game Connect Four cells were played in two sittings; `--resume` must give the games one
uninterrupted run plays, or the recorded figure would not be the run its command names.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_paper_mcts.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_paper_mcts", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _counts(path: Path) -> list[tuple[str, dict, dict]]:
    return [
        (c["opponent"], c["cpp"]["counts"], c["python"]["counts"])
        for c in json.loads(path.read_text())["cells"]
    ]


@pytest.mark.slow
def test_a_resumed_run_is_the_uninterrupted_run(tmp_path: Path, capsys) -> None:
    bench = _bench()
    args = ["--game", "tic_tac_toe", "--opponent", "optimal"]
    whole, half, grown = tmp_path / "whole.json", tmp_path / "half.json", tmp_path / "grown.json"
    bench.main([*args, "--games", "20", "--out", str(whole)])
    bench.main([*args, "--games", "10", "--out", str(half)])
    capsys.readouterr()
    bench.main([*args, "--games", "20", "--resume", str(half), "--out", str(grown)])
    rounds = [line for line in capsys.readouterr().err.splitlines() if "games per impl" in line]
    assert len(rounds) == 1 and rounds[0].endswith(": 20 games per impl")  # only games 10-19 were played
    assert _counts(grown) == _counts(whole)
    assert _counts(half) != _counts(whole)
    assert json.loads(grown.read_text())["cells"][0]["cpp"]["games"] == 20
