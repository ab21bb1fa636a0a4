"""Drawn boards: each game's SVG has its cells and exactly its pieces, every legal move coloured by
its value, and the last move marked; the value line has a point per ply and a marker per mistake."""

from __future__ import annotations

import random
import re

import pytest

from plylab.games import get_game
from plylab.games.boards import DRAWINGS, Marks, draw
from plylab.games.nim import pile_sizes
from plylab.reports.valueline import chart


def _play(game: str, plies: int, seed: int = 1):
    engine = get_game(game).engine
    state, before, last = engine.new_initial_state(), None, None
    rng = random.Random(seed)
    for _ in range(plies):
        before, last = state.clone(), rng.choice(state.legal_actions())
        state.apply_action(last)
    return state, before, last


def _marks(state, before, last) -> Marks:
    names = ("win", "draw", "loss")
    return Marks(last=last, before=before, values={a: names[a % 3] for a in state.legal_actions()})


# (game, plies, cells, pieces after those plies): placements add one piece a ply
CASES = [
    ("tic_tac_toe", 4, 9, 4),
    ("connect_four", 7, 42, 7),
    ("mnk:m=3,n=4,k=3", 5, 12, 5),
    ("hex:board_size=5", 6, 25, 6),
    ("othello", 0, 64, 4),
    ("breakthrough:rows=6,columns=5", 1, 30, 20),  # a first move cannot capture
    ("clobber", 1, 30, 29),  # every Clobber move captures
    ("go:board_size=5", 3, 25, 3),
    ("dots_and_boxes:num_rows=2,num_cols=2", 3, 4, 3),  # cells: boxes; pieces: lines drawn
    ("chess", 0, 64, 32),  # from its FEN
    ("checkers", 0, 64, 24),
    ("lines_of_action", 0, 64, 24),
]


@pytest.mark.parametrize(("game", "plies", "cells", "pieces"), CASES)
def test_board_has_its_cells_pieces_values_and_last_move(
    game: str, plies: int, cells: int, pieces: int
) -> None:
    state, before, last = _play(game, plies)
    svg = draw(game, state, _marks(state, before, last))
    assert svg is not None and svg.startswith("<svg"), f"{game} has a drawing"
    assert re.search(rf'data-cells="{cells}"', svg) and re.search(rf'data-pieces="{pieces}"', svg), svg[:300]
    assert svg.count('class="piece"') == pieces
    legal = re.findall(r'class="legal[^"]*" data-action="(\d+)" data-value="(\w+)"', svg)
    assert sorted(int(a) for a, _ in legal) == sorted(state.legal_actions()), "every legal move is drawn"
    assert all(v == ("win", "draw", "loss")[int(a) % 3] for a, v in legal), "coloured by its own value"
    assert svg.count('class="last"') == (1 if last is not None else 0)


def test_nim_is_drawn_as_piles_of_sticks() -> None:
    state, before, last = _play("nim", 2)
    svg = draw("nim", state, _marks(state, before, last))
    assert svg is not None and svg.count('class="piece"') == sum(pile_sizes(state))
    assert 'class="taken"' in svg, "the sticks the last move took are shown, faded"
    assert len(re.findall(r'class="legal', svg)) == len(state.legal_actions())


def test_a_game_without_a_drawing_keeps_its_text_board() -> None:
    assert "amazons" not in DRAWINGS and draw("amazons", object(), Marks()) is None


def _step(seat: int, action: int | None, value: str | None, optimal: bool | None, informative: bool = True):
    legal = (
        [{"action": 0, "value": value, "score": None, "graded": None, "probability": None}]
        if action is not None
        else []
    )
    return {
        "seat": seat,
        "ply": 0,
        "action": action,
        "legal": legal,
        "optimal": optimal,
        "informative": informative,
        "decision": None,  # a store from before grades: the exact values and flags alone
    }


def test_value_line_has_a_point_per_ply_and_a_marker_per_mistake() -> None:
    steps = [
        _step(0, 0, "draw", True),
        _step(1, 0, "win", False),  # a mistake: seat 1 gives seat... (its own value: win)
        _step(0, 0, "loss", False),
        _step(1, 0, "win", True, informative=False),  # all moves equal: not a mistake
        _step(0, None, None, None),  # a failure
    ]
    for i, s in enumerate(steps):
        s["ply"] = i
    svg = chart(steps, ["X", "O"])
    assert svg.count('class="point"') == len(steps)
    assert svg.count('class="mistake"') == 2 and svg.count('class="failure"') == 1
    assert re.findall(r'data-step="(\d+)"', svg) == [str(i) for i in range(len(steps))]


def test_no_oracle_means_no_empty_chart() -> None:
    assert "<svg" not in chart([_step(0, 0, None, None)], ["X", "O"])
