"""`suite run --repeats N`: each position asked N times of each player, each answer with its own seed,
stored under its repeat number; the first answer is the one a run without repeats gives."""

from __future__ import annotations

import itertools
import json
import sqlite3
from pathlib import Path

import pytest

from plylab.analysis.paired import binomial_two_sided
from plylab.analysis.repeated import repeated_rate, sign_flip_p
from plylab.analysis.stats import wilson
from plylab.cli import main
from plylab.suites.answer import Answer
from plylab.suites.report import REPEATS_NOTE, SuiteResults, pairs_table, players_table
from plylab.suites.study import SuiteRun


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _rows(store: Path) -> list[tuple[int, str, int, int | None]]:
    with sqlite3.connect(store) as conn:
        rows = conn.execute(
            "SELECT position, player, repeat, action FROM suite_answers ORDER BY player, position, repeat"
        )
        return [tuple(r) for r in rows]


@pytest.mark.slow
def test_repeats_answer_each_position_n_times_with_their_own_seeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        _cli(capsys, "suite", "build", "k", "--game", "kuhn_poker", "--positions", "7", "--seed", "1")[0] == 0
    )
    players = ["--player", "optimal:epsilon=0.5", "--player", "optimal"]
    run = ["suite", "run", "k", *players, "-q"]
    code, out, err = _cli(capsys, *run, "--repeats", "4", "--store", "r.sqlite")
    assert code == 0 and "56/56 answers saved" in out, err
    rows = _rows(tmp_path / "r.sqlite")
    assert len(rows) == 56
    assert {(p, r) for _, p, r, _ in rows} == {
        (p, r) for p in ("optimal", "optimal:epsilon=0.5") for r in range(4)
    }
    sampled: dict[int, set[int | None]] = {}
    for pos, player, _, action in rows:
        if player == "optimal:epsilon=0.5":
            sampled.setdefault(pos, set()).add(action)
    assert any(len(actions) > 1 for actions in sampled.values())  # the repeats are not one answer copied

    # the first answer of each position is the one a run without --repeats gives
    assert _cli(capsys, *run, "--store", "once.sqlite")[0] == 0
    once = _rows(tmp_path / "once.sqlite")
    assert [r for r in rows if r[2] == 0] == once

    code, out, _ = _cli(capsys, *run, "--repeats", "4", "--store", "r.sqlite")  # resumed: nothing missing
    assert code == 0 and "0 played now, 56 already there" in out

    code, out, _ = _cli(capsys, "suite", "report", "--store", "r.sqlite", "--format", "json")
    data = json.loads(out)
    by = {r["player"]: r for r in data["players"]["players"]}
    assert (by["optimal"]["n"], by["optimal"]["positions"], by["optimal"]["answers"]) == (7, 7, 28)
    (pair,) = data["pairs"]["pairs"]
    assert pair["rate"]["n"] == 7  # positions, each with its repeats paired repeat by repeat
    code, out, _ = _cli(capsys, "suite", "report", "--store", "r.sqlite", "--format", "markdown")
    assert "suite run --repeats" in out  # the note saying what n counts


def _results(repeats: int, first_right: int, second_right: int, positions: int = 7) -> SuiteResults:
    """Two players that answer every position the same each time: right on the first few."""
    answers = [
        Answer(pos, player, f"p{pos}", 0, "a", pos < right, float(pos >= right), 1.0, 0.5, {}, repeat=r)
        for player, right in (("first", first_right), ("second", second_right))
        for pos in range(positions)
        for r in range(repeats)
    ]
    return SuiteResults(((SuiteRun(1, "suite-t", "t", "sha256:0", "tic_tac_toe"), tuple(answers)),))


def test_a_deterministic_player_repeated_is_reported_as_if_it_answered_once() -> None:
    once, ten = _results(1, 6, 2), _results(10, 6, 2)
    (a_once, b_once), (a_ten, b_ten) = (players_table(r).data["players"] for r in (once, ten))
    for one, many in ((a_once, a_ten), (b_once, b_ten)):
        assert many["n"] == one["n"] == 7 and many["answers"] == 70
        assert many["optimal"] == pytest.approx(one["optimal"])  # rate, interval and n: positions
    (pair_once,) = pairs_table(once).data["pairs"]
    (pair_ten,) = pairs_table(ten).data["pairs"]
    assert pair_ten["rate"] == pytest.approx(pair_once["rate"])
    assert pair_ten["rate"]["n"] == 7 and pair_ten["rate"]["p"] == pytest.approx(0.125)  # 4 of 4 one way
    assert pair_ten["loss"] == pytest.approx(pair_once["loss"])
    assert REPEATS_NOTE in pairs_table(ten).notes and REPEATS_NOTE in players_table(ten).notes


def test_repeats_that_vary_narrow_the_interval_between_positions_and_answers() -> None:
    # 20 positions, 10 answers each, every position right 5 times of 10: answers vary within a
    # position as much as a coin, not at all across positions
    even = repeated_rate([(5, 10)] * 20)
    assert even.n == 20 and even.rate == 0.5
    assert (even.low, even.high) == pytest.approx((wilson(100, 200).low, wilson(100, 200).high))
    # half the positions always right, half always wrong: the positions are all there is
    split = repeated_rate([(10, 10)] * 10 + [(0, 10)] * 10)
    assert (split.low, split.high) == pytest.approx((wilson(10, 20).low, wilson(10, 20).high))
    mixed = repeated_rate([(8, 10)] * 10 + [(2, 10)] * 10)
    assert split.low < mixed.low < even.low and even.high < mixed.high < split.high


@pytest.mark.parametrize("differences", [[3, -1, 2, 0, 2, 5, -2], [1, 1, -1, 1, 0, 1], [4, 4, 4], [2, -2]])
def test_the_sign_flip_test_is_exact(differences: list[int]) -> None:
    nonzero = [k for k in differences if k]
    observed = abs(sum(differences))
    extreme = sum(
        1
        for signs in itertools.product((1, -1), repeat=len(nonzero))
        if abs(sum(s * k for s, k in zip(signs, nonzero, strict=True))) >= observed
    )
    assert sign_flip_p(differences) == pytest.approx(extreme / 2 ** len(nonzero))


def test_the_sign_flip_test_on_single_answers_is_mcnemars_exact_test() -> None:
    # 20 positions: the first alone right on 9, the second alone on 2 (the scipy example above)
    assert sign_flip_p([1] * 9 + [-1] * 2 + [0] * 9) == binomial_two_sided(9, 11)
    assert sign_flip_p([10] * 9 + [-10] * 2) == pytest.approx(binomial_two_sided(9, 11))


@pytest.mark.parametrize("value", ["0", "-2"])
def test_repeats_below_one_are_refused_in_one_line(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        _cli(capsys, "suite", "build", "t", "--game", "tic_tac_toe", "--positions", "2", "--seed", "1")[0]
        == 0
    )
    code, _, err = _cli(capsys, "suite", "run", "t", "--player", "random", "--repeats", value, "-q")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--repeats" in err and value in err
