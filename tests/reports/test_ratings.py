"""Bradley-Terry ratings: ordering, the random anchor, symmetry, intervals."""

from __future__ import annotations

import pytest

from plylab.reports.ratings import ANCHOR_ELO, Result, rate


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


def test_a_perfect_record_stays_finite_with_a_real_interval() -> None:
    r = _by_player(_games("optimal", "random", 30, 0, 0))
    assert ANCHOR_ELO < r["optimal"].elo < ANCHOR_ELO + 2000
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
