"""The minimax tables against OpenSpiel's own alpha-beta search, exhaustively where it is cheap."""

import random

import pytest
from open_spiel.python.algorithms import minimax

from plylab.games import get_game
from plylab.oracles.minimax import MinimaxTable, position_key


def all_states(game):
    seen, stack, out = set(), [game.new_state()], []
    while stack:
        s = stack.pop()
        key = position_key(s)
        if key in seen or s.is_terminal():
            continue
        seen.add(key)
        out.append(s)
        stack.extend(s.child(a) for a in s.legal_actions())
    return out


def test_tic_tac_toe_table_covers_every_reachable_position():
    game = get_game("tic_tac_toe")
    table = game.oracle()
    states = all_states(game)
    assert len(states) == 4520  # 5,478 reachable states minus 958 terminal ones
    assert set(table.values) == {position_key(s) for s in states}
    assert table.values[position_key(game.new_state())] == 0  # a draw


def test_nim_start_is_a_first_player_loss():
    game = get_game("nim")
    mv = game.oracle().move_values(game.new_state())
    assert set(mv.values.values()) == {-1}
    assert not mv.informative  # every move loses: such states are excluded from optimality


@pytest.mark.slow
@pytest.mark.parametrize("name, samples", [("tic_tac_toe", 60), ("nim", 15)])
def test_values_agree_with_openspiel_alpha_beta(name, samples):
    game = get_game(name)
    table = game.oracle()
    rng = random.Random(7)
    states = all_states(game)
    for state in rng.sample(states, samples):
        mover = state.current_player()
        for action, value in table.move_values(state).values.items():
            child = state.child(action)
            if child.is_terminal():
                expected = child.returns()[mover]
            else:
                v, _ = minimax.alpha_beta_search(game.engine, state=child, maximizing_player_id=mover)
                expected = v
            assert value == round(expected), (str(state), action)


def test_table_is_cached_on_disk_and_reloaded(tmp_path, monkeypatch):
    monkeypatch.setenv("PLYLAB_CACHE", str(tmp_path))
    game = get_game("nim")
    built = MinimaxTable.load_or_build(game.engine, "nim")
    assert (tmp_path / "minimax-nim.json").exists()
    loaded = MinimaxTable.load_or_build(game.engine, "nim")
    assert loaded.values == built.values
    (tmp_path / "minimax-nim.json").write_text("{torn")  # a torn file is rebuilt, not trusted
    assert MinimaxTable.load_or_build(game.engine, "nim").values == built.values
