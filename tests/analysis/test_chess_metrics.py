"""Chess metrics by lichess's definitions, and `plylab report` printing them with the engine line."""

from __future__ import annotations

import json
import math

import pytest

from plylab.analysis.chess import GradedPly, game_accuracy, judgement, move_accuracy
from tests.support.engines import needs_stockfish


def test_judgements_at_lichess_thresholds() -> None:
    assert [judgement(x) for x in (0.0, 0.049, 0.05, 0.099, 0.10, 0.149, 0.15, 0.6)] == [
        None, None, "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder",
    ]  # fmt: skip


def test_move_accuracy_is_lichess_formula() -> None:
    assert move_accuracy(50, 50) == 100 and move_accuracy(40, 60) == 100
    expected = 103.1668100711649 * math.exp(-0.04354415386753951 * 10) - 3.166924740191411 + 1
    assert move_accuracy(60, 50) == pytest.approx(expected) and 60 < expected < 70
    assert move_accuracy(100, 0) == 0


def test_a_game_without_losses_is_100_and_a_blunder_pulls_it_down() -> None:
    clean = [GradedPly(i, i % 2, 0.5, 0.5, 0, True, "e") for i in range(20)]
    assert game_accuracy(clean, 0) == pytest.approx(100)
    blundered = [*clean[:10], GradedPly(10, 0, 0.5, 0.2, 300, False, "e"), *clean[11:]]
    assert game_accuracy(blundered, 0) < 90 and game_accuracy(blundered, 1) == pytest.approx(100)


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
@needs_stockfish
def test_report_prints_acpl_accuracy_blunders_and_best_move_with_the_engine_line(cli, tmp_path) -> None:
    store = tmp_path / "s.sqlite"
    assert cli("run", "--game", "chess", "--player", "random", "--opponent", "stockfish:nodes=300",
               "--games", "2", "--score", "nodes=1000", "--store", str(store), "--quiet").code == 0  # fmt: skip
    out = cli("report", "--store", str(store)).out
    for column in ("ACPL [95% t]", "accuracy [95% t]", "best move [95% Wilson]", "blunders", "first blunder"):
        assert column in out
    assert "engine: stockfish 15.1 nodes=1000" in out
    data = json.loads(cli("report", "--store", str(store), "--format", "json").out)["chess"]
    (row,) = data
    assert (
        row["player"] == "random" and row["games"] == 2 and row["acpl"]["mean"] > 50
    )  # random loses material
    assert row["blunder"]["count"] > 0 and 0 <= row["best_move"]["low"] <= row["best_move"]["rate"] < 1
    assert row["engine"] == ["stockfish 15.1 nodes=1000"]
