"""The MCTS opponent is the paper's: MCTS-Solver at n=1000 (tic-tac-toe, Nim) / 5000 (Connect Four)."""

from __future__ import annotations

import asyncio

import pytest

from plylab.games import get_game
from plylab.players import Turn, make_player
from plylab.players.mcts import MctsPlayer, paper_sims


def _state(game_name: str, actions: list[int]):
    game = get_game(game_name)
    state = game.new_state()
    for a in actions:
        state.apply_action(a)
    return game, state


@pytest.mark.parametrize("game, sims", [("tic_tac_toe", 1000), ("nim", 1000), ("connect_four", 5000)])
def test_default_budget_is_the_papers_per_game(game, sims):
    player = make_player("mcts", get_game(game), 0)
    assert isinstance(player, MctsPlayer) and player.sims == sims == paper_sims(game)
    assert make_player("mcts:sims=77", get_game(game), 0).sims == 77


def test_default_is_mcts_solver_and_solve_false_stays_a_key():
    game = get_game("tic_tac_toe")
    assert make_player("mcts", game, 0).options.solve is True
    assert make_player("mcts:solve=false", game, 0).options.solve is False


# X: a1 (0), b2 (4); O: a2 (1), c3 (8); X to move has a fork and a forced win.
FORK = [0, 1, 4, 8]


@pytest.mark.parametrize("seed", range(5))
def test_the_default_bot_proves_a_forced_win_and_plays_it(seed):
    game, state = _state("tic_tac_toe", FORK)
    values = game.oracle().move_values(state).values
    winning = {a for a, v in values.items() if v == 1}
    assert winning and winning != set(state.legal_actions())  # the position discriminates
    player = make_player("mcts", game, seed)
    root = player.search(state)
    # MCTS-Solver backs the proven outcome up to the root (X = player 0 wins) and stops early;
    # plain UCT never proves anything and spends its whole budget.
    assert list(root.outcome) == [1.0, -1.0]
    assert root.explore_count < player.sims
    d = asyncio.run(player.act(Turn(game, game.formulation("standard"), state.clone(), 0, len(FORK), "j")))
    assert d.action in winning


def test_plain_uct_proves_nothing():
    game, state = _state("tic_tac_toe", FORK)
    player = make_player("mcts:solve=false", game, 0)
    root = player.search(state)
    assert list(root.outcome) == [] and root.explore_count >= player.sims
