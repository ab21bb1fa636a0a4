"""The `struct` formulation (OpenSpiel 2.0's JSON, 003 l.425) as the llm player meets it; its bijection
proofs are with every formulation's, in test_formulations.py."""

from __future__ import annotations

import json

import pyspiel
import pytest

from plylab.games import get_game
from plylab.games.hidden import playable_types
from plylab.games.structs import STRUCT_GAMES
from plylab.players import Turn, make_player
from plylab.players.llm import build_prompt
from plylab.quiet import engine_quiet
from tests.players.test_llm import Script, act


def has_structs(state: pyspiel.State) -> bool:
    """Whether OpenSpiel's build writes the mover's observation and an action of `state` as structs."""
    try:
        with engine_quiet():
            state.to_observation_struct(int(state.current_player())).to_json()
            state.action_to_struct(state.legal_actions()[0]).to_json()
    except pyspiel.SpielError:
        return False
    return True


def test_struct_is_offered_where_the_build_has_structs_and_no_hidden_game_has_them() -> None:
    """When OpenSpiel gives a hidden-information game its structs, this fails: `struct` should then
    be offered for it, its view the seat's own observation struct, and the leak test run on it."""
    for name in STRUCT_GAMES:
        assert has_structs(get_game(name).new_state()) and "struct" in get_game(name).formulations
    with_structs = []
    for gt in playable_types():
        state = pyspiel.load_game(gt.short_name).new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        if has_structs(state):
            with_structs.append(gt.short_name)
    assert with_structs == []


def struct_turn(spec: str, formulation: str, *replies: str):
    g = get_game("tic_tac_toe")
    player = make_player(spec, g, 0)
    player.model = Script(*replies)
    state = g.new_state()
    state.apply_action(4)  # the centre, {"col":1,"row":1}, is taken
    return player, Turn(g, g.formulation(formulation), state, 1, 1, "job-s")


def test_the_enum_is_of_action_structs_and_a_reply_plays_one() -> None:
    player, turn = struct_turn(
        "llm:model=local,output=enum", "struct", '{"action": "{\\"col\\":2,\\"row\\":0}"}'
    )
    d = act(player, turn)
    assert d.action == 2 and d.failure is None
    enum = player.model.calls[0]["schema"]["properties"]["action"]["enum"]
    # listed sorted by name (issue 46): the struct text, so row 1 of column 0 comes before column 1
    assert [json.loads(x) for x in enum][:2] == [{"col": 0, "row": 0}, {"col": 0, "row": 1}]
    assert '{"col":1,"row":1}' not in enum


@pytest.mark.parametrize(
    "reply, action, failure",
    [
        ('{ "row": 2, "col": 0 }', 6, None),  # any spacing and key order
        ('{"row": 1, "col": 1}', None, "illegal"),  # validate_action_struct: the cell is taken
        ('{"row": 7, "col": 1}', None, "unparseable"),  # no such cell: OpenSpiel refuses to build it
        ("the corner", None, "unparseable"),
    ],
)
def test_a_free_answer_is_an_action_struct_judged_by_openspiel(reply, action, failure) -> None:
    player, turn = struct_turn("llm:model=local", "struct", reply)
    d = act(player, turn)
    assert (d.action, d.failure) == (action, failure)


def test_renamed_fields_are_answered_in_the_names_shown_and_never_leak_openspiels() -> None:
    f = get_game("tic_tac_toe").formulation("struct:fields=3")
    shown = json.loads(f.label(0))
    assert set(shown) == {f.names["col"], f.names["row"]} and not {"col", "row"} & set(shown)
    player, turn = struct_turn("llm:model=local", "struct:fields=3", json.dumps({f.names["row"]: 7}))
    d = act(player, turn)
    assert d.failure == "unparseable" and "row" not in (d.attempts[0].error or "")
    prompt = build_prompt(turn, list(turn.formulation.legal_labels(turn.state)), "text", 0)
    assert '"board"' not in prompt and '"row"' not in prompt and "Tic-tac-toe" not in prompt


def test_a_run_names_the_struct_formulation(cli, tmp_path) -> None:
    store = tmp_path / "s.sqlite"
    args = ["run", "--game", "tic_tac_toe", "--formulation", "struct:actions=5", "--player", "random"]
    assert cli(*args, "--opponent", "optimal", "--games", "2", "--store", str(store), "-q").code == 0
    out = cli("report", "--store", str(store)).out
    assert "struct:actions=5" in out
