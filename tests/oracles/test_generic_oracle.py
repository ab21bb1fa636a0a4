"""The generic minimax table (issue 14): equal to the dedicated tables on every state, right by
theory on generated Nim instances, cached on disk, and bounded by a state-count limit."""

from __future__ import annotations

import functools
import json

import pyspiel
import pytest

from plylab.errors import UserError
from plylab.games import get_game
from plylab.oracles import generic
from plylab.oracles.generic import GenericOracle, TooLarge, bound, cache_path, fits
from plylab.oracles.minimax import MinimaxTable


def reachable(game: pyspiel.Game) -> list[pyspiel.State]:
    """Every non-terminal position once (keyed like the tables), by depth-first search."""
    seen: dict[str, pyspiel.State] = {}
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        key = generic.position_key(state)
        if key in seen or state.is_terminal():
            continue
        seen[key] = state
        stack.extend(state.child(a) for a in state.legal_actions())
    return list(seen.values())


@pytest.mark.parametrize("name", ["tic_tac_toe", "nim"])
def test_generic_oracle_equals_the_dedicated_table_on_every_state(name: str) -> None:
    game = get_game(name)
    dedicated = game.oracle()
    assert isinstance(dedicated, MinimaxTable)
    table = GenericOracle.build(game.engine)
    states = reachable(game.engine)
    assert len(states) == {"tic_tac_toe": 4520, "nim": 750}[name] == len(table)
    for state in states:
        assert table.move_values(state).values == dedicated.move_values(state).values, str(state)


def misere_nim_wins(piles: list[int]) -> bool:
    """Bouton's theorem for misère Nim: the mover wins iff (every pile <= 1 and an even count of
    ones) or (some pile > 1 and the nim-sum is not zero)."""
    if all(p <= 1 for p in piles):
        return sum(piles) % 2 == 0
    return functools.reduce(lambda a, b: a ^ b, piles) != 0


@pytest.mark.parametrize("piles", ["2;4;6", "3;3", "1;2;3;4"])
def test_generated_nim_instances_are_solved_as_theory_says(piles: str) -> None:
    game = get_game(f"nim:pile_sizes={piles}")
    assert game.has_oracle and game.spec == f"nim:pile_sizes={piles}"
    oracle = game.oracle()
    for state in reachable(game.engine):
        sizes = [int(x) for x in str(state).split(":", 1)[1].split()]
        assert (oracle.move_values(state).value == 1) == misere_nim_wins(sizes), sizes


def test_the_table_is_cached_on_disk_under_the_game_name(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("PLYLAB_CACHE", str(tmp_path))
    engine = get_game("hex:board_size=3").engine
    first = GenericOracle.load_or_build(engine, "hex:board_size=3")
    path = cache_path("hex:board_size=3")
    assert path.exists() and json.loads(path.read_text())["game"] == "hex:board_size=3"
    monkeypatch.setattr(GenericOracle, "build", None)  # a second load must not rebuild
    again = GenericOracle.load_or_build(engine, "hex:board_size=3")
    assert again.values == first.values
    path.write_text("{torn")
    monkeypatch.undo()
    monkeypatch.setenv("PLYLAB_CACHE", str(tmp_path))
    assert GenericOracle.load_or_build(engine, "hex:board_size=3").values == first.values


def test_the_state_count_limit_decides_and_bounds(monkeypatch) -> None:
    mnk = get_game("mnk:m=3,n=4,k=3").engine
    assert bound(mnk) == 3**12 and fits(mnk)
    assert not fits(get_game("mnk:m=4,n=4,k=3").engine)  # 3^16 positions at most: over the limit
    assert bound(pyspiel.load_game("chess")) is None  # not offered: its text is not the whole position
    assert bound(pyspiel.load_game("pig")) is None  # chance nodes
    with pytest.raises(TooLarge):
        GenericOracle.build(mnk, max_positions=1000)
    monkeypatch.setenv("PLYLAB_ORACLE_LIMIT", "1000")
    assert not fits(mnk)
    assert not get_game("mnk:m=3,n=3,k=2").has_oracle  # parametrised after the limit dropped
    with pytest.raises(UserError, match="no exact oracle is available"):
        get_game("mnk:m=3,n=3,k=2").oracle()


def test_scores_where_the_game_has_them() -> None:
    margin = get_game("dots_and_boxes:num_rows=1,num_cols=2,utility_margin=true")
    mv = margin.oracle().move_values(margin.new_state())
    assert mv.scores is not None and {(s > 0) - (s < 0) for s in mv.scores.values()} <= {-1, 0, 1}
    assert all((mv.scores[a] > 0) - (mv.scores[a] < 0) == v for a, v in mv.values.items())
    plain = get_game("dots_and_boxes:num_rows=1,num_cols=2")
    assert plain.oracle().move_values(plain.new_state()).scores is None


@pytest.mark.slow
def test_connect_four_small_boards_get_the_generic_table() -> None:
    small = get_game("connect_four:rows=4,columns=4")
    assert small.has_oracle and isinstance(small.oracle(), GenericOracle)
    assert "4 columns" in small.formulation("standard").rules()
    assert small.oracle().move_values(small.new_state()).value == 0  # 4x4 Connect Four is a draw
