"""MCTS on hidden-information games: OpenSpiel's ISMCTSBot where the engine resamples worlds,
determinized MCTS over sampled worlds elsewhere (and on request), and the worlds themselves."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys

import pytest

from plylab.games import get_game
from plylab.games.hidden import information
from plylab.harness.plan import single_plan
from plylab.harness.session import play_game
from plylab.players.mcts import resamples
from plylab.players.worlds import TooManyWorlds, sample_world


def test_ismcts_applies_where_openspiel_resamples() -> None:
    assert resamples(get_game("kuhn_poker")) and resamples(get_game("leduc_poker"))
    assert not resamples(get_game("liars_dice")) and not resamples(get_game("phantom_ttt"))


@pytest.mark.parametrize(
    "game", ["kuhn_poker", pytest.param("liars_dice", marks=pytest.mark.slow), "phantom_ttt"]
)  # liars_dice: about a minute, in `make test` only
def test_determinized_mcts_replays_its_games(game: str) -> None:
    plan = single_plan(game, "standard", "mcts:search=determinized,sims=200", "random", 4, 1, None)
    for job in plan.jobs():
        a, b = asyncio.run(play_game(job)), asyncio.run(play_game(job))
        assert [m.action for m in a.moves] == [m.action for m in b.moves] and a.returns == b.returns


# Plays a plan's games in a fresh process and prints each game's moves: a reproducible player replays
# them in another process (the C++ ISMCTSBot did not even within one).
_PLAY = """
import asyncio, json, sys
from plylab.harness.plan import single_plan
from plylab.harness.session import play_game
plan = single_plan(sys.argv[1], "standard", sys.argv[2], "random", 20, int(sys.argv[3]), None)
print(json.dumps([[m.action for m in asyncio.run(play_game(j)).moves] for j in plan.jobs()]))
"""


def _moves_in_a_new_process(game: str, player: str, seed: int) -> list[list[int]]:
    done = subprocess.run(
        [sys.executable, "-c", _PLAY, game, player, str(seed)],
        capture_output=True, text=True, timeout=300, env=os.environ.copy(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# A small budget: the C++ bot's games differed from run to run at it, and 20 games stay cheap.
@pytest.mark.parametrize(
    "game",
    [pytest.param("kuhn_poker", marks=pytest.mark.slow), pytest.param("leduc_poker", marks=pytest.mark.slow)],
)  # two fresh processes each (kuhn_poker about 3 s, leduc_poker about 20 s): in `make test` only
def test_ismcts_replays_its_games_in_another_process(game: str) -> None:
    """The default search on a resampling game is information-set MCTS, seeded by the job alone."""
    player = "mcts:sims=100"
    first = _moves_in_a_new_process(game, player, 1)
    assert _moves_in_a_new_process(game, player, 1) == first
    assert _moves_in_a_new_process(game, player, 2) != first


@pytest.mark.slow  # 20 searched games of liars_dice: half a minute or more, in `make test` only
def test_mcts_beats_random_at_liars_dice() -> None:
    """Not a benchmark: a search that reads its dice wins most games against random bids."""
    plan = single_plan("liars_dice", "standard", "mcts:sims=300", "random", 20, 2, None)
    wins = sum(asyncio.run(play_game(j)).outcome == "win" for j in plan.jobs())
    assert wins >= 12


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker", "liars_dice", "phantom_ttt"])
def test_a_world_gives_the_seat_the_same_information_at_every_step(game: str) -> None:
    g = get_game(game)
    rng = random.Random(4)
    differ = 0
    for _ in range(30):
        state = g.new_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([o for o, _ in state.chance_outcomes()]))
                continue
            seat = int(state.current_player())
            world = sample_world(state, seat, rng)
            assert world.current_player() == seat and world.legal_actions() == state.legal_actions()
            real, other = g.new_state(), g.new_state()
            for a, b in zip(state.history(), world.history(), strict=True):
                real.apply_action(a)
                other.apply_action(b)
                assert information(real, seat) == information(other, seat)
            differ += world.serialize() != state.serialize()
            state.apply_action(rng.choice(state.legal_actions()))
    assert differ > 10  # the worlds are not just the real game


def test_a_search_too_long_is_refused() -> None:
    g = get_game("liars_dice")
    state = g.new_state()
    state.apply_action(0)
    state.apply_action(1)
    with pytest.raises(TooManyWorlds):
        sample_world(state, 0, random.Random(0), max_nodes=0)
