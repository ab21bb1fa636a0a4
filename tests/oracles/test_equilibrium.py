"""The equilibrium oracle against what is known of Kuhn poker, and its grades against hand computation.

Kuhn poker: a deck J, Q, K (actions 0 = pass/fold, 1 = bet/call), each antes 1, one bet of 1. The
game value for the first player is -1/18 in every equilibrium. The action values checked by hand
below hold in every equilibrium (a J facing a bet always loses a call, a K always wins one), so they
test the walk, not the particular equilibrium CFR+ found.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyspiel
import pytest

from plylab.oracles.equilibrium import (
    PLAYED,
    TARGET,
    EquilibriumOracle,
    action_values,
    bound,
    cache_path,
    fits,
)
from plylab.oracles.graded import grade_of

PASS, BET = 0, 1
J, Q, K = 0, 1, 2


@pytest.fixture(scope="module")
def kuhn() -> EquilibriumOracle:
    return EquilibriumOracle.load_or_build(pyspiel.load_game("kuhn_poker"), "kuhn_poker")


def state_after(history: list[int]) -> pyspiel.State:
    state = pyspiel.load_game("kuhn_poker").new_initial_state()
    for a in history:
        state.apply_action(a)
    return state


def test_kuhn_value_is_minus_one_eighteenth(kuhn: EquilibriumOracle) -> None:
    assert kuhn.value[0] == pytest.approx(-1 / 18, abs=1e-3)
    assert kuhn.value[1] == pytest.approx(1 / 18, abs=1e-3)
    assert len(kuhn) == 12


def test_exploitability_within_the_stated_bound(kuhn: EquilibriumOracle) -> None:
    game = pyspiel.load_game("kuhn_poker")
    table = {k: list(e.policy.items()) for k, e in kuhn.infosets.items()}
    measured = pyspiel.exploitability(game, table)
    assert measured <= TARGET * (game.max_utility() - game.min_utility())
    assert measured == pytest.approx(kuhn.exploitability, rel=1e-6)
    assert "cfr+" in kuhn.source and f"{kuhn.exploitability:.2e}" in kuhn.source


@pytest.mark.slow  # over 0.9 s on two cores
def test_two_builds_give_the_same_tables() -> None:
    game = pyspiel.load_game("kuhn_poker")
    a, b = EquilibriumOracle.build(game), EquilibriumOracle.build(game)
    assert json.dumps(a.to_json("k") | {"build_seconds": 0}) == json.dumps(
        b.to_json("k") | {"build_seconds": 0}
    )


def test_the_cache_holds_what_was_built(kuhn: EquilibriumOracle) -> None:
    path = cache_path("kuhn_poker")
    assert path.exists()
    again = EquilibriumOracle.load_or_build(pyspiel.load_game("kuhn_poker"), "kuhn_poker")
    assert again.infosets == kuhn.infosets and again.value == kuhn.value


@pytest.mark.slow  # over 0.9 s on two cores
def test_a_torn_cache_file_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLYLAB_CACHE", str(tmp_path))
    cache_path("kuhn_poker").write_text("{not json")
    oracle = EquilibriumOracle.load_or_build(pyspiel.load_game("kuhn_poker"), "kuhn_poker")
    assert oracle.value[0] == pytest.approx(-1 / 18, abs=1e-3)
    assert json.loads(cache_path("kuhn_poker").read_text())["game"] == "kuhn_poker"


@pytest.mark.slow  # two Kuhn builds, about a second each on two cores
def test_a_run_says_it_builds_an_equilibrium_and_shows_the_solver(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An equilibrium not yet cached is built before the run's bar, with a line saying so and a bar of
    the solver's iterations (not tens of silent seconds behind 0/N games); once cached, nothing."""
    monkeypatch.setenv("PLYLAB_CACHE", str(tmp_path / "cache"))
    store = str(tmp_path / "s.sqlite")
    seen: list[tuple[int, int]] = []
    EquilibriumOracle.build(
        pyspiel.load_game("kuhn_poker"), progress=lambda done, goal: seen.append((done, goal))
    )
    assert [d for d, _ in seen] == list(range(1, len(seen) + 1)) and seen[-1][0] == seen[-1][1]
    run = ("run", "--game", "kuhn_poker", "--player", "random", "--opponent", "random", "--store", store)
    first = cli(*run, "--games", "2")
    assert first.code == 0, first.err
    assert "building the Kuhn Poker equilibrium (once, cached)…" in first.err
    assert f"{seen[-1][0]}/{seen[-1][0]} solver iterations" in first.err
    assert first.err.index("building the") < first.err.index("2 games to play")  # before the run's bar
    assert cache_path("kuhn_poker").exists()
    again = cli(*run, "--games", "3")
    assert again.code == 0 and "building" not in again.err
    monkeypatch.setenv("PLYLAB_CACHE", str(tmp_path / "other"))  # --quiet builds without a word
    quiet = cli(*run, "--games", "4", "--quiet")
    assert quiet.code == 0 and "building" not in quiet.err and cache_path("kuhn_poker").exists()


# (history before the decision, the action played, its loss by hand)
HAND = [
    ([J, K, BET], PASS, 3.0),  # always-fold with K facing a bet: folding (-1) instead of calling (+2)
    ([K, J, BET], BET, 1.0),  # always-call with J facing a bet: calling (-2) instead of folding (-1)
    ([K, J, PASS, BET], PASS, 3.0),  # always-fold: K facing a bet after passing
    ([J, K, PASS, BET], BET, 1.0),  # always-call: J facing a bet after passing
    ([Q, J], BET, 1 / 6),  # always-call opens with Q: a bet is called by K (-2), folded by J (+1)
    ([K, J, BET], PASS, 0.0),  # folding with J is what the equilibrium does: no loss
]


@pytest.mark.parametrize(("history", "action", "loss"), HAND)
def test_losses_of_always_fold_and_always_call_match_hand_computation(
    kuhn: EquilibriumOracle, history: list[int], action: int, loss: float
) -> None:
    state = state_after(history)
    grade = grade_of(kuhn, state, action)
    assert grade.unit == "payoff" and grade.span == 4.0 and not grade.exact
    assert grade.loss(action) == pytest.approx(loss, abs=1e-3)
    assert grade.informative
    assert grade.detail["infoset"] == state.information_state_string(state.current_player())
    assert grade.detail["played"] is (loss == 0.0)
    assert sum(grade.detail["policy"].values()) == pytest.approx(1.0)


def test_the_grade_depends_only_on_what_the_mover_knows(kuhn: EquilibriumOracle) -> None:
    """Player 2 holding K facing a bet grades alike whether player 1 holds J or Q."""
    a, b = grade_of(kuhn, state_after([J, K, BET]), PASS), grade_of(kuhn, state_after([Q, K, BET]), PASS)
    assert a == b


def test_an_opening_with_all_values_equal_is_not_informative(kuhn: EquilibriumOracle) -> None:
    """Holding K, the first player is indifferent between betting and passing (each is worth 7/6
    against the equilibrium): the decision is excluded from rates."""
    grade = grade_of(kuhn, state_after([K, J]), PASS)
    assert not grade.informative
    assert grade.expected[PASS] == pytest.approx(grade.expected[BET], abs=grade.tolerance)


def test_an_information_set_the_equilibrium_never_reaches_is_valued_by_chance_alone() -> None:
    """A policy where player 1 never bets: player 2 facing a bet is valued over the deal alone."""
    game = pyspiel.load_game("kuhn_poker")
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(50):
        solver.evaluate_and_update_policy()
    table = dict(solver.tabular_average_policy().policy_table())
    for key in ("0", "1", "2"):
        table[key] = [(PASS, 1.0), (BET, 0.0)]
    infosets, _ = action_values(game, table)
    facing = infosets["2b"]  # K facing an opening bet
    assert facing.belief == "chance"
    assert facing.values[BET] == pytest.approx(2.0) and facing.values[PASS] == pytest.approx(-1.0)
    assert infosets["2p"].belief == "equilibrium"


def test_played_threshold_is_a_probability() -> None:
    assert 0.0 < PLAYED < 0.5


def test_bounds_say_which_games_fit() -> None:
    assert bound(pyspiel.load_game("kuhn_poker")) == 12
    assert bound(pyspiel.load_game("liars_dice")) == 24_576
    assert fits(pyspiel.load_game("leduc_poker"))
    assert not fits(pyspiel.load_game("liars_dice", {"numdice": 2}))
    assert bound(pyspiel.load_game("tic_tac_toe")) is None
