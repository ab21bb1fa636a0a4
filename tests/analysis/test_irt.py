"""The 2PL model, its fit and adaptive item choice, checked against responses simulated from known
item parameters and abilities (an independent check: the simulation draws from the model's own
definition, the fit never sees the truth)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from plylab.analysis.adaptive import adaptive_test, next_item
from plylab.analysis.irt import AnchoredScale, ability, fit_2pl, information, probability


def _simulate(
    seed: int, respondents: int = 500, items: int = 40
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.6, 2.2, items)
    b = rng.normal(0.0, 1.0, items)
    theta = rng.normal(0.0, 1.0, respondents)
    p = 1.0 / (1.0 + np.exp(-a[None, :] * (theta[:, None] - b[None, :])))
    return (rng.random(p.shape) < p).astype(int), a, b, theta


def test_fit_recovers_simulated_item_parameters_and_abilities() -> None:
    x, a, b, theta = _simulate(7)
    fit = fit_2pl(x)
    fb, fa = fit.arrays()
    assert np.corrcoef(fb, b)[0, 1] > 0.9
    assert np.corrcoef(fa, a)[0, 1] > 0.9
    estimates = [ability(range(x.shape[1]), row.astype(bool), fb, fa).theta for row in x]
    assert np.corrcoef(estimates, theta)[0, 1] > 0.9


def test_fit_is_deterministic() -> None:
    x, *_ = _simulate(3, respondents=200, items=20)
    assert fit_2pl(x) == fit_2pl(x.copy())


def test_items_answered_alike_by_everyone_are_uninformative_and_perfect_respondents_stay_finite() -> None:
    x, *_ = _simulate(5, respondents=200, items=20)
    x[0, :] = 1  # a perfect respondent (on every position some answer wrongly)
    x[:, 0] = 1  # every respondent right
    x[:, 1] = 0  # every respondent wrong
    fit = fit_2pl(x)
    assert fit.items[0].difficulty is None and fit.items[0].discrimination == 0.0
    assert fit.items[1].difficulty is None and fit.items[1].discrimination == 0.0
    assert all(i.difficulty is not None for i in fit.items[2:])
    fb, fa = fit.arrays()
    perfect = ability(range(2, 20), [True] * 18, fb, fa)
    assert np.isfinite(perfect.theta) and perfect.se > 0
    assert perfect.theta > ability(range(2, 20), x[1, 2:].astype(bool), fb, fa).theta


def test_a_position_that_ranks_respondents_backwards_has_a_negative_item_rest_correlation() -> None:
    x, _, _, theta = _simulate(9, respondents=300, items=20)
    x[:, 0] = (theta < 0).astype(int)  # answered optimally by exactly the weaker half
    fit = fit_2pl(x)
    assert fit.items[0].correlation is not None and fit.items[0].correlation < -0.3
    # a discrimination is positive under girth's prior: the fit says "backwards" only as "weakest"
    assert fit.items[0].discrimination == min(i.discrimination for i in fit.items) > 0
    assert all(i.correlation is not None and i.correlation > 0 for i in fit.items[1:])


def test_fit_refuses_a_matrix_that_is_not_binary() -> None:
    with pytest.raises(ValueError, match="0/1"):
        fit_2pl(np.array([[0, 2], [1, 0]]))


def test_information_peaks_at_the_items_difficulty_and_grows_with_discrimination() -> None:
    thetas = np.linspace(-4, 4, 801)
    info = [float(information(t, [0.7], [1.5])[0]) for t in thetas]
    assert thetas[int(np.argmax(info))] == pytest.approx(0.7, abs=0.01)
    assert max(info) == pytest.approx(1.5**2 / 4)
    assert information(0.0, [0.0], [2.0])[0] > information(0.0, [0.0], [1.0])[0]
    assert probability(0.7, 0.7, 1.5) == pytest.approx(0.5)


def test_next_item_is_the_most_informative_unasked_one_and_randomesque_stays_in_the_top_k() -> None:
    b = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    a = np.ones(5)
    rng = np.random.default_rng(0)
    assert next_item(0.9, b, a, set(), rng, top=1) == 3
    assert next_item(0.9, b, a, {3}, rng, top=1) == 2
    drawn = {next_item(0.0, b, a, set(), np.random.default_rng(s), top=3) for s in range(50)}
    assert drawn == {1, 2, 3}  # exposure spread over the three most informative, never beyond
    assert next_item(0.0, b, a, set(range(5)), rng) is None


@pytest.mark.parametrize("true", [-1.5, 0.0, 1.2])
def test_adaptive_test_recovers_a_simulated_ability_within_its_interval_reproducibly(true: float) -> None:
    rng = np.random.default_rng(11)
    b = rng.normal(0.0, 1.2, 300)
    a = rng.uniform(0.8, 2.0, 300)
    draws = np.random.default_rng(int(1000 * true) + 5000).random(300)  # the respondent's fixed luck

    def respond(i: int) -> bool:
        return bool(draws[i] < probability(true, b[i], a[i]))

    estimate, asked, _ = adaptive_test(respond, b, a, np.random.default_rng(1), until_se=0.25, most=200)
    low, high = estimate.interval()
    assert low <= true <= high
    assert estimate.se <= 0.25 and len(asked) < 200  # stopped on precision, long before the pool ran out
    again = adaptive_test(respond, b, a, np.random.default_rng(1), until_se=0.25, most=200)
    assert again[1] == asked
    other = adaptive_test(respond, b, a, np.random.default_rng(2), until_se=0.25, most=200)
    assert other[1] != asked  # the seed, not the pool alone, decides the order


def test_anchored_scale_puts_the_anchors_at_0_and_1000_and_maps_intervals() -> None:
    scale = AnchoredScale(low=-1.0, high=1.5)
    assert scale.value(-1.0) == 0.0
    assert scale.value(1.5) == pytest.approx(1000.0)
    assert scale.value(0.25) == pytest.approx(500.0)
    est = ability([], [], [], [])  # the prior: 0 +- 1
    value, low, high = scale.anchored(est)
    assert value == pytest.approx(400.0)
    assert low == pytest.approx(400.0 - 1.959964 * 400.0, rel=1e-5)
    assert high == pytest.approx(400.0 + 1.959964 * 400.0, rel=1e-5)
    with pytest.raises(ValueError, match="must exceed"):
        AnchoredScale(low=1.0, high=0.5)
