"""Chess metrics by lichess's definitions, and `plylab report` printing them with the engine line."""

from __future__ import annotations

import json
import math

import pytest

from plylab.analysis.chess import START, Info, acpl, advice, game_accuracy, move_accuracy
from tests.support.engines import needs_stockfish


def _move(ply: int, cp: int | None = None, mate: int | None = None, best: bool = False) -> Info:
    """The Info after ply `ply` (White moves on even plies), White's view."""
    return Info(ply, ply % 2 == 0, cp, mate, variation=not best)


def test_judgements_at_lichess_winning_chance_drops() -> None:
    # Advice.scala's CpAdvice: a drop in winning chances of 0.1 / 0.2 / 0.3, cp not capped
    assert advice(_move(0, 0), _move(1, 0)) is None
    assert advice(_move(0, 0), _move(1, 60)) == "inaccuracy"  # Black's chances fall by 0.11
    assert advice(_move(0, 0), _move(1, 115)) == "mistake"
    assert advice(_move(0, 0), _move(1, 170)) == "blunder"
    assert advice(_move(0, 0), _move(1, 170, best=True)) is None  # the engine's best move is never judged
    # beyond the cap the raw evaluation counts: White's +30.00 to +4.50 drops 0.32 (0.27 capped)
    assert advice(_move(1, 3000), _move(2, 450)) == "blunder"


def test_mate_rules_as_lichess_has_them() -> None:
    # issue 38's 16...Be5: Black from -8.47 (White's +8.47) into mate in one is a mistake
    assert advice(_move(30, 847), _move(31, mate=1)) == "mistake"
    assert advice(_move(30, 1200), _move(31, mate=1)) == "inaccuracy"  # already lost past -9.99
    assert advice(_move(30, 300), _move(31, mate=1)) == "blunder"
    # issue 38's 8.Bxc7+: White gives up a mate in three for +8.50: a mistake
    assert advice(_move(13, mate=3), _move(14, 850)) == "mistake"
    assert advice(_move(13, mate=3), _move(14, 1200)) == "inaccuracy"
    assert advice(_move(13, mate=3), _move(14, mate=-2)) == "blunder"  # into being mated
    assert advice(_move(13, mate=3), _move(14, mate=5)) is None  # a slower mate: not judged
    assert advice(_move(13, mate=-3), _move(14, -400)) is None  # escaping a mate


def test_acpl_starts_at_plus_15_caps_mates_and_rounds_per_game() -> None:
    infos = [_move(0, 20), _move(1, 40), _move(2, -61), _move(3, mate=1)]
    # White: 15 -> 20 (0), 40 -> -61 (101): 50.5 rounds half up to 51
    # Black: 20 -> 40 (20), -61 -> mate (the cap, +1000: 1061): 540.5 rounds to 541
    assert acpl(infos, white=True) == 51 and acpl(infos, white=False) == 541
    assert acpl([_move(0, -2000)], white=True) == 1015  # from lichess's +15 to the -1000 cap
    assert acpl([_move(0, -2000)], white=False) is None  # Black has not moved
    assert START.cp == 15


def test_move_accuracy_is_lichess_formula() -> None:
    assert move_accuracy(50, 50) == 100 and move_accuracy(40, 60) == 100
    expected = 103.1668100711649 * math.exp(-0.04354415386753951 * 10) - 3.166924740191411 + 1
    assert move_accuracy(60, 50) == pytest.approx(expected) and 60 < expected < 70
    assert move_accuracy(100, 0) == 0


def test_game_accuracy_floors_the_harmonic_mean_at_one() -> None:
    clean = [_move(i, 15) for i in range(20)]
    assert game_accuracy(clean, True) == pytest.approx(100)
    # White throws everything away on its first move: accuracy 0 there, which lichess floors at 1
    lost = [_move(0, -1000), *(_move(i, -1000) for i in range(1, 20))]
    acc = game_accuracy(lost, True)
    assert acc is not None and 40 < acc < 60  # 10 moves: harmonic 10 / (1 + 9/100) = 9.17, not 0
    assert game_accuracy(lost, False) == pytest.approx(100)


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


def test_an_ungraded_move_takes_the_next_move_s_evaluation_before_and_a_mate_ends_the_infos() -> None:
    from plylab.analysis.chess import GradedPly, LichessGame

    def ply(n: int, before: dict, after: dict, best: bool = False) -> GradedPly:
        return GradedPly(n, n % 2, 0.5, 0.5, 0, best, "e", n % 2 == 0, before, after)

    plies = [
        ply(0, {"cp": 20}, {"cp": -30}),  # the mover's (White's) view
        # ply 1 ungraded; ply 2's evaluation before (White's view) stands in for the position after it
        ply(2, {"cp": 300}, {"cp": -250}),
        ply(3, {"cp": 250}, {"mate": -1}),  # Black walks into mate in one
        ply(4, {"mate": 1}, {"result": 1.0}, best=True),  # the mate: no Info
    ]
    game = LichessGame.of(plies)
    assert [(i.ply, i.cp, i.mate, i.variation) for i in game.infos] == [
        (0, -30, None, True), (1, 300, None, False), (2, -250, None, True), (3, None, 1, True),
    ]  # fmt: skip
    assert game.judgements == {2: "blunder", 3: "blunder"}  # ply 1 (no variation known) is not judged
