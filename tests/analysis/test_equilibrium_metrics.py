"""The empirical strategy's exploitability against hand computation on Kuhn poker.

Always passing (checking and folding): a best response bets into it and wins the ante, +1 a game in
either seat, while the strategy against itself breaks even, so NashConv is 2 and exploitability 1.
Always betting (betting and calling): the best response bets a K (+2), checks a Q and calls with it
(0 either way), and gives up a J (-1): 1/3 a game in each seat, exploitability 1/3.
"""

from __future__ import annotations

import pyspiel
import pytest

from plylab.analysis.equilibrium import (
    counts_of,
    empirical_policy,
    exploitability,
    exploitability_estimate,
    merged,
)
from plylab.oracles.equilibrium import EquilibriumOracle
from plylab.oracles.graded import Grade

PASS, BET = 0, 1


@pytest.fixture(scope="module")
def legal() -> dict[str, list[int]]:
    oracle = EquilibriumOracle.load_or_build(pyspiel.load_game("kuhn_poker"), "kuhn_poker")
    return {k: sorted(e.policy) for k, e in oracle.infosets.items()}


def always(action: int, legal: dict[str, list[int]]) -> dict[str, dict[int, int]]:
    return {k: {action: 3} for k in legal}


def test_always_pass_is_exploitable_by_one(legal: dict[str, list[int]]) -> None:
    game = pyspiel.load_game("kuhn_poker")
    assert exploitability(game, always(PASS, legal), legal) == pytest.approx(1.0)


def test_always_bet_is_exploitable_by_a_third(legal: dict[str, list[int]]) -> None:
    game = pyspiel.load_game("kuhn_poker")
    assert exploitability(game, always(BET, legal), legal) == pytest.approx(1 / 3)


def test_unseen_information_sets_are_uniform(legal: dict[str, list[int]]) -> None:
    table = empirical_policy({"0": {BET: 2, PASS: 1}}, legal)
    assert table["0"] == [(PASS, pytest.approx(1 / 3)), (BET, pytest.approx(2 / 3))]
    assert table["2pb"] == [(PASS, 0.5), (BET, 0.5)]


def test_counts_come_from_the_grades_information_sets() -> None:
    def graded(detail: dict) -> Grade:
        return Grade({PASS: 0.0, BET: 1.0}, unit="payoff", detail=detail)

    grades = [(graded({"infoset": "0"}), BET), (graded({"infoset": "0"}), BET), (graded({}), PASS)]
    assert counts_of(grades) == {"0": {BET: 2}}
    assert merged([{"0": {BET: 2}}, {"0": {PASS: 1}, "1": {BET: 1}}]) == {
        "0": {BET: 2, PASS: 1},
        "1": {BET: 1},
    }


def test_the_bootstrap_interval_holds_the_estimate_and_is_seeded(legal: dict[str, list[int]]) -> None:
    game = pyspiel.load_game("kuhn_poker")
    per_game = [{"0": {BET: 1}}, {"0": {PASS: 1}, "1p": {PASS: 1}}, {"2": {BET: 1}}, {"1": {PASS: 1}}]
    a = exploitability_estimate(game, per_game, legal, resamples=50)
    assert a.low <= a.value <= a.high
    assert a.decisions == 5 and a.infosets_seen == 4 and a.infosets == 12
    assert a == exploitability_estimate(game, per_game, legal, resamples=50)
