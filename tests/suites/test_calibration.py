"""`suite calibrate` on a real tic-tac-toe suite and real reference players (random, MCTS at two
budgets, the minimax-optimal player): the same file twice is the same bytes and hash, the fit orders
the ladder by strength on the anchored scale, a hand edit of the calibration is refused, `suite show`
names the positions that separate the ladder hardly at all, and a ladder player asked adaptively
(the most informative position at its current estimate, through the suite run's own job) is placed
where the calibration put it."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from plylab.analysis.adaptive import adaptive_test
from plylab.analysis.irt import Ability
from plylab.cli import main
from plylab.players import RunContext
from plylab.seeds import derive_seed
from plylab.suites.build import build_suite
from plylab.suites.calibration import calibrate, items
from plylab.suites.file import Suite, read_suite
from plylab.suites.study import suite_job

LADDER = ["random", "mcts:sims=10", "mcts:sims=100", "optimal"]


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _calibrate(capsys: pytest.CaptureFixture[str], path: Path, seed: int = 3) -> tuple[int, str, str]:
    ladder = [arg for spec in LADDER for arg in ("--ladder", spec)]
    return _cli(capsys, "suite", "calibrate", str(path), *ladder, "--answers", "3", "--seed", str(seed))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cal") / "ttt.jsonl"
    assert (
        main(
            ["suite", "build", "ttt", "--game", "tic_tac_toe", "-n", "40", "--seed", "1", "--out", str(path)]
        )
        == 0
    )
    return path


def test_calibration_is_deterministic_from_its_seed_and_keeps_the_positions(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = read_suite(str(built))[0]
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    one.write_bytes(built.read_bytes())
    two.write_bytes(built.read_bytes())
    assert _calibrate(capsys, one)[0] == 0
    assert _calibrate(capsys, two)[0] == 0
    assert one.read_bytes() == two.read_bytes()
    calibrated = read_suite(str(one))[0]
    assert calibrated.hash != raw.hash  # a new version of the suite
    assert [p.id for p in calibrated.positions] == [p.id for p in raw.positions]
    # calibrating the calibrated file again replaces its calibration with the same one
    assert _calibrate(capsys, one)[0] == 0
    assert one.read_bytes() == two.read_bytes()
    assert _calibrate(capsys, two, seed=4)[0] == 0  # another seed, other answers
    assert one.read_bytes() != two.read_bytes()


def test_the_fit_orders_the_ladder_on_the_anchored_scale(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ttt.jsonl"
    path.write_bytes(built.read_bytes())
    assert _calibrate(capsys, path)[0] == 0
    cal = read_suite(str(path))[0].calibration
    assert cal is not None and cal["ladder"] == LADDER and cal["anchors"] == {"random": 0, "optimal": 1000}
    values = [cal["players"][spec]["anchored"][0] for spec in LADDER]
    assert values[0] == 0 and values[-1] == 1000
    assert values == sorted(values) and 0 < values[1] < values[2] < 1000
    for spec in LADDER:
        value, low, high = cal["players"][spec]["anchored"]
        assert low <= value <= high
    assert len(cal["items"]) == 40
    fitted = [i for i in cal["items"] if i["difficulty"] is not None]
    assert fitted and all(i["discrimination"] > 0 for i in fitted)


def test_show_lists_the_calibration_and_positions_that_separate_the_ladder_hardly(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ttt.jsonl"
    path.write_bytes(built.read_bytes())
    _calibrate(capsys, path)
    cal = read_suite(str(path))[0].calibration
    assert cal is not None
    alike = [i for i, it in enumerate(cal["items"]) if it["difficulty"] is None]
    code, out, _ = _cli(capsys, "suite", "show", str(path))
    assert code == 0
    assert "calibration: 2PL" in out and "(0 = random, 1000 = optimal)" in out
    for spec in LADDER:
        assert f"  {spec} " in out
    line = next(x for x in out.splitlines() if "answered alike by the whole ladder" in x)
    assert line.endswith("none") if not alike else f"positions {', '.join(map(str, alike[:30]))}" in line
    assert "near-zero or negative discrimination" in out


def test_a_hand_edited_calibration_is_refused_in_one_line(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ttt.jsonl"
    path.write_bytes(built.read_bytes())
    _calibrate(capsys, path)
    lines = path.read_text().split("\n")
    head = json.loads(lines[0])
    head["calibration"]["players"]["random"]["ability"] += 1.0
    path.write_text("\n".join([json.dumps(head), *lines[1:]]))
    code, _, err = _cli(capsys, "suite", "show", str(path))
    assert code == 2 and "no longer matches its hash" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("ladder", "says"),
    [
        (["random"], "at least two different players"),
        (["random", "llm:model=local"], "calls a model"),
        (["random", "nope"], "unknown player 'nope'"),
    ],
)
def test_a_ladder_that_cannot_calibrate_is_refused_in_one_line(
    built: Path, capsys: pytest.CaptureFixture[str], ladder: list[str], says: str
) -> None:
    before = built.read_bytes()
    args = [arg for spec in ladder for arg in ("--ladder", spec)]
    code, _, err = _cli(capsys, "suite", "calibrate", str(built), *args)
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1
    assert built.read_bytes() == before


@pytest.fixture(scope="module")
def calibrated() -> Suite:
    suite = build_suite("ttt-cal", "tic_tac_toe", 100, seed=1)
    return calibrate(suite, LADDER, answers=3, seed=1)


def _adaptive(suite: Suite, spec: str, seed: int) -> tuple[Ability, list[int]]:
    """The player asked adaptively, position by position, through the suite run's own job (each
    answer with a seed of its own, none the calibration's)."""
    difficulty, discrimination = items(suite)

    def answer(i: int) -> bool:
        job = replace(suite_job(suite, suite.positions[i], spec), seed=derive_seed("adaptive", seed, i))
        return asyncio.run(job.play(RunContext())).optimal

    estimate, asked, _ = adaptive_test(
        answer, difficulty, discrimination, np.random.default_rng(seed), until_se=0.25, most=100
    )
    return estimate, asked


@pytest.mark.parametrize("spec", LADDER)
def test_an_adaptive_run_on_a_ladder_player_recovers_its_calibrated_ability(
    calibrated: Suite, spec: str
) -> None:
    assert calibrated.calibration is not None
    fitted = calibrated.calibration["players"][spec]["ability"]
    estimate, asked = _adaptive(calibrated, spec, seed=5)
    low, high = estimate.interval()
    assert low <= fitted <= high, (spec, fitted, estimate)
    if spec.startswith("mcts"):
        assert len(asked) < 60  # it stopped on precision, long before the suite ran out
