"""N seats in the one session: seat rotation, outcomes from any number of returns, forfeits; and the
two-seat case exactly as before (job keys, seeds, seats), so stored runs replay identically."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from plylab.errors import UserError
from plylab.harness.plan import GameJob, Matchup, Plan, single_plan
from plylab.harness.session import forfeit_returns, outcome_for, play_game
from plylab.seeds import derive_seed


def test_two_seats_keep_the_papers_half_and_half_and_their_keys() -> None:
    """The formulas plylab has always used, written out: a change here would orphan every store."""
    m = Matchup("tic_tac_toe", "standard", "random", "mcts")
    assert m.key == "tic_tac_toe|standard|random|mcts" and m.seats == 2
    for games in (1, 2, 5, 100):
        for idx in range(games):
            job = GameJob(m, idx, games, 7)
            seat = 0 if idx < (games + 1) // 2 else 1
            assert job.player_seat == seat
            assert job.key == f"{m.key}|seed=7|{idx}|seat={seat}"
            assert job.seed == derive_seed(7, m.key, idx, seat)
            assert job.seat_specs() == (("random", "mcts") if seat == 0 else ("mcts", "random"))
    plan = Plan("p", 0, 4, [m])
    assert plan.to_dict() == {
        "seed": 0,
        "games": 4,
        "matchups": [
            {"game": "tic_tac_toe", "formulation": "standard", "player": "random", "opponent": "mcts"}
        ],
    }


def test_n_seats_rotate_each_seat_equally_often() -> None:
    m = Matchup("g", "standard", "me", "a", others=("b", "c"))
    assert m.seats == 4 and m.key == "g|standard|me|a|b|c"
    jobs = [GameJob(m, i, 8, 0) for i in range(8)]
    assert Counter(j.player_seat for j in jobs) == {0: 2, 1: 2, 2: 2, 3: 2}
    for j in jobs:
        specs = j.seat_specs()
        assert specs[j.player_seat] == "me"
        # the opponents follow the player in turn order
        assert [specs[(j.player_seat + k) % 4] for k in (1, 2, 3)] == ["a", "b", "c"]
    assert len({j.key for j in jobs}) == 8
    assert Plan("p", 0, 8, [m]).to_dict()["matchups"][0]["others"] == ["b", "c"]


def test_outcomes_and_forfeits_for_any_number_of_seats() -> None:
    assert outcome_for([1.0, -1.0], 0, None) == "win"
    assert outcome_for([1.0, -1.0], 1, None) == "loss"
    assert outcome_for([0.0, 0.0], 1, None) == "draw"
    assert outcome_for([2.0, -2.0], 0, 0) == "failure"
    assert outcome_for([-1.0, 3.0, -2.0], 1, None) == "win"
    assert outcome_for([3.0, 3.0, -6.0], 0, None) == "draw"  # shares the best return
    assert outcome_for([3.0, 3.0, -6.0], 2, None) == "loss"
    assert forfeit_returns(2, 0) == [-1.0, 1.0] and forfeit_returns(2, 1) == [1.0, -1.0]
    assert forfeit_returns(3, 2) == [0.5, 0.5, -1.0]


def test_a_matchup_must_fill_the_games_seats() -> None:
    with pytest.raises(UserError, match="played by 2 seats"):
        Plan(
            "p", 0, 2, [Matchup("kuhn_poker", "standard", "random", "random", others=("random",))]
        ).validate()


def test_hidden_information_game_plays_through_the_session() -> None:
    """Kuhn poker: chance deals from the job's seed, the returns are chips, the outcome follows."""
    plan = single_plan("kuhn_poker", "standard", "random", "random", 4, 3, None)
    recs = [asyncio.run(play_game(j)) for j in plan.jobs()]
    again = [asyncio.run(play_game(j)) for j in plan.jobs()]
    for r, s in zip(recs, again, strict=True):
        assert r.returns == s.returns and [m.state for m in r.moves] == [m.state for m in s.moves]
        assert sum(r.returns) == 0 and r.outcome == outcome_for(r.returns, r.player_seat, None)
        assert r.extra is None  # two seats: no seat list
    assert {m.seat for r in recs for m in r.moves} == {0, 1}
