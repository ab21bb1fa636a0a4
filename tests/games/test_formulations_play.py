"""Every registered formulation plays end to end through the CLI (issue 4's checked interface)."""

import asyncio
import json

import pytest

from plylab.games import GAMES, get_game
from plylab.games.generic import Generic
from plylab.models import Reply, Usage
from plylab.players import Turn, make_player

# The papers' games (a module of their own and an exact oracle); every other game is played by
# tests/games/test_generic.py.
PAPER_GAMES = [
    g
    for g in GAMES.names()
    if GAMES.get(g).has_oracle and not issubclass(GAMES.get(g).formulations.get("standard"), Generic)
]
FORMULATIONS = [(g, f) for g in PAPER_GAMES for f in GAMES.get(g).formulations.names()]


def test_every_paper_formulation_is_registered(cli):
    games = json.loads(cli("games", "--format", "json").out)["games"]
    listed = {g["name"]: set(g["formulations"]) for g in games}
    assert {"standard", "hidden", "magic_square", "magic_square_plus5", "story", "relabel"} <= listed[
        "tic_tac_toe"
    ]
    assert {"standard", "hidden", "inverse", "story", "relabel"} <= listed["nim"]
    assert {"standard", "relabel"} <= listed["connect_four"]


# Recorded games: fixed OpenSpiel action sequences and their results, worked out by hand.
# Tic-tac-toe cells are 0..8 row by row; Nim (piles 1, 3, 5, 7, misère: who takes the last
# object loses) action = (taken - 1) * 4 + pile index; Connect Four actions are columns 0..6.
RECORDED = {
    "tic_tac_toe": [
        ([4, 1, 0, 2, 8], [1.0, -1.0]),  # X takes the diagonal 0-4-8
        ([0, 4, 1, 2, 8, 6], [-1.0, 1.0]),  # O takes the diagonal 2-4-6
        ([4, 0, 2, 6, 3, 5, 1, 7, 8], [0.0, 0.0]),  # every threat blocked: a full board, a draw
    ],
    "nim": [
        ([27, 18, 9, 0], [1.0, -1.0]),  # 7 from pile 4, 5 from 3, 3 from 2: seat 1 must take the last
        ([0, 1, 2, 3, 7, 5, 14, 11, 3], [-1.0, 1.0]),  # down to one object, which seat 0 must take
    ],
    "connect_four": [
        ([3, 4, 3, 4, 3, 4, 3], [1.0, -1.0]),  # four up column 3
        ([0, 1, 0, 2, 6, 3, 6, 4], [-1.0, 1.0]),  # seat 1 fills the bottom row from column 1 to 4
    ],
}
RECORDED_FORMULATIONS = [
    (g, f) for g in RECORDED for f in GAMES.get(g).formulations.names() + ["relabel:seed=7"]
]


class Replayer:
    """Stands in for the model of both seats: reads each prompt as a model would, checks that it
    shows the recorded game's current position, and answers with the recorded move's label.

    It keeps its own replay of the recorded game, so a player that parsed a label to the wrong
    action, or rendered another position, is caught at the next prompt.
    """

    is_local = False

    def __init__(self, game, f, actions: list[int], output: str) -> None:
        self.f, self.actions, self.output = f, actions, output
        self.state = game.new_state()

    async def generate(self, messages, *, schema=None, config=None, cache_key=None, cache=None):
        prompt = messages[-1]["content"]
        listed = prompt.split("Legal moves:\n", 1)[1].split("\n\n", 1)[0].splitlines()
        listed = [line.removeprefix("- ") for line in listed]
        assert f"The current position:\n{self.f.render_state(self.state)}\n" in prompt
        assert f"You play {self.f.seat_name(self.state.current_player())}." in prompt
        assert len(listed) == len(self.state.legal_actions())
        label = self.f.action_label(self.state, self.actions[len(self.state.history())])
        assert label in listed, (label, listed)
        self.state.apply_action(self.actions[len(self.state.history())])
        if self.output == "enum":
            assert schema["properties"]["action"]["enum"] == listed
            text = json.dumps({"action": label})
        else:
            text = f"Looking at the position, I settle on {label}.\nAction: {label}"
        return Reply(text=text, usage=Usage(input_tokens=1, output_tokens=1))


@pytest.mark.parametrize("output", ["text", "enum"])
@pytest.mark.parametrize("game_name, spec", RECORDED_FORMULATIONS)
def test_recorded_games_replay_through_every_rendered_surface(game_name, spec, output):
    """Each recorded game, played by two LLM players whose model answers with the rendered label
    of the recorded move, gives the same moves and the same result under every formulation."""
    game = get_game(game_name)
    f = game.formulation(spec)
    for actions, returns in RECORDED[game_name]:
        model = Replayer(game, f, actions, output)
        players = [make_player(f"llm:model=local,output={output}", game, seat) for seat in (0, 1)]
        for p in players:
            p.model = model
        state = game.new_state()
        while not state.is_terminal():
            seat, ply = state.current_player(), len(state.history())
            d = asyncio.run(players[seat].act(Turn(game, f, state.clone(), seat, ply, "recorded")))
            assert d.failure is None and d.action == actions[ply], (ply, d)
            state.apply_action(d.action)
        assert state.history() == actions and model.state.history() == actions
        assert state.returns() == returns
        outcome = f.describe_outcome(state)
        if returns[0] == returns[1]:
            assert "draw" in outcome.lower(), outcome
        else:
            winner = returns.index(1.0)
            assert (
                f"{f.seat_name(winner)} wins" in outcome and f"{f.seat_name(1 - winner)} wins" not in outcome
            )


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.parametrize("game, formulation", FORMULATIONS)
def test_the_local_model_plays_every_formulation_without_failures(cli, tmp_path, game, formulation):
    """The real Gemma, constrained to the legal labels of the surface, finishes a game under it
    (one test per formulation: one slow surface on a loaded machine fails alone, not the set)."""
    store = tmp_path / "llm.sqlite"
    res = cli(
        "run",
        "--game",
        game,
        "--formulation",
        formulation,
        "--player",
        "llm:model=local,output=enum",
        "--opponent",
        "optimal",
        "--games",
        "1",
        "--store",
        str(store),
        "--quiet",
    )
    assert res.code == 0, (game, formulation, res.err)
    rows = json.loads(cli("report", "--store", str(store), "--format", "json").out)["matchups"]
    assert [(r["game"], r["formulation"]) for r in rows] == [(game, formulation)]
    r = rows[0]
    assert r["games"] == 1 and r["failures"] == 0, r["failure_kinds"]
    assert r["usage"]["calls"] > 0 and r["tokens_per_move"]["mean"] > 0
