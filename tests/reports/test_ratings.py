"""Bradley-Terry ratings: ordering, the random anchor, symmetry, intervals."""

from __future__ import annotations

import math

import pytest

from plylab.analysis.ratings import ANCHOR_ELO, Result, rate


def _games(a: str, b: str, wins: int, draws: int, losses: int) -> list[Result]:
    return [Result(a, b, 1.0)] * wins + [Result(a, b, 0.5)] * draws + [Result(a, b, 0.0)] * losses


def _by_player(results: list[Result]) -> dict:
    return {r.player: r for r in rate(results)}


def test_dominant_player_rates_higher_and_random_is_the_anchor() -> None:
    results = (
        _games("optimal", "random", 20, 0, 0)
        + _games("mcts:sims=50", "random", 12, 4, 4)
        + _games("mcts:sims=50", "optimal", 0, 10, 10)
    )
    r = _by_player(results)
    assert r["random"].elo == ANCHOR_ELO
    assert r["random"].low == r["random"].high == ANCHOR_ELO
    assert r["optimal"].elo > r["mcts:sims=50"].elo > r["random"].elo
    assert (r["mcts:sims=50"].wins, r["mcts:sims=50"].draws, r["mcts:sims=50"].losses) == (12, 14, 14)


def test_even_results_give_equal_ratings_and_intervals_hold_the_estimate() -> None:
    results = _games("a", "b", 5, 2, 5) + _games("a", "random", 6, 0, 2) + _games("b", "random", 6, 0, 2)
    r = _by_player(results)
    assert r["a"].elo == pytest.approx(r["b"].elo, abs=1e-6)
    for rating in r.values():
        assert rating.low <= rating.elo <= rating.high


def test_a_perfect_record_orders_the_players_but_rates_neither() -> None:
    """Bradley-Terry has no finite estimate for an unbeaten player: the games say only who is above."""
    r = _by_player(_games("optimal", "random", 30, 0, 0))
    assert r["optimal"].elo is None and r["random"].elo is None
    assert not r["optimal"].identified and r["optimal"].low is None
    assert (r["optimal"].rank, r["random"].rank) == (1, 2)
    assert r["random"].note == "below optimal"


def test_a_lopsided_but_connected_record_gets_an_interval_around_its_estimate() -> None:
    r = _by_player(_games("optimal", "random", 30, 1, 0))
    assert r["optimal"].identified and r["optimal"].elo is not None
    assert r["optimal"].low < r["optimal"].elo <= r["optimal"].high
    assert r["optimal"].high - r["optimal"].low > 50


def test_draws_count_half_and_self_play_is_ignored() -> None:
    r = _by_player(_games("x", "random", 0, 10, 0) + _games("x", "x", 5, 0, 0))
    assert r["x"].elo == pytest.approx(ANCHOR_ELO, abs=1e-6)
    assert r["x"].games == 10


def test_without_random_the_mean_is_the_anchor() -> None:
    r = _by_player(_games("p", "q", 8, 0, 2))
    assert (r["p"].elo + r["q"].elo) / 2 == pytest.approx(ANCHOR_ELO)
    assert r["p"].elo > r["q"].elo
    assert rate([]) == []


def test_two_players_are_rated_at_the_independent_map_estimate() -> None:
    """Against a one-dimensional fit written here: p scores 6 wins, 2 draws (half each), 2 losses
    against q; the strengths maximise the Bradley-Terry likelihood times the Gaussian prior of
    PRIOR_SD_ELO on each (centred, so each is half the gap)."""
    from scipy.optimize import minimize_scalar

    from plylab.analysis.ratings import ELO_PER_LOGIT, PRIOR_SD_ELO

    sd = PRIOR_SD_ELO / ELO_PER_LOGIT  # the prior in logits
    won = 6 + 2 * 0.5  # draws count half a win for each side
    lost = 10 - won

    def minus_log_posterior(gap: float) -> float:
        return won * math.log1p(math.exp(-gap)) + lost * math.log1p(math.exp(gap)) + gap**2 / (4 * sd**2)

    gap = minimize_scalar(minus_log_posterior, bounds=(-20, 20), method="bounded", options={"xatol": 1e-9}).x
    r = _by_player(_games("p", "q", 6, 2, 2))
    assert r["p"].elo - r["q"].elo == pytest.approx(gap * ELO_PER_LOGIT, abs=0.01)
    assert 0 < r["p"].elo - r["q"].elo < 400 * math.log10(won / lost)  # the prior pulls in the plain MLE
