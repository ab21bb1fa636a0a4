"""A game names its ground truth once (`GameDef.ground_truth`), whatever its kind, and the session
grades every move by what that one attribute declares: no kind is told apart, or chosen, by the
session. A report asks the same attribute what grades a game (its kind and name)."""

from __future__ import annotations

import asyncio
import json

import pyspiel
import pytest

from plylab.games import GAMES, GroundTruth, get_game
from plylab.harness.plan import single_plan
from plylab.harness.session import play_game
from plylab.oracles import MoveValues
from plylab.oracles.graded import Grade
from plylab.oracles.uci import FAMILY


def test_every_game_declares_its_kind_and_name() -> None:
    kinds = {
        name: (t.kind, t.name)
        for name in ("tic_tac_toe", "nim", "connect_four", "kuhn_poker", "leduc_poker", *FAMILY)
        if (t := get_game(name).ground_truth) is not None
    }
    assert kinds == {
        "tic_tac_toe": ("exact", "minimax table"),
        "nim": ("exact", "minimax table"),
        "connect_four": ("exact", "connect four solver"),
        "kuhn_poker": ("equilibrium", "cfr+ equilibrium"),
        "leduc_poker": ("equilibrium", "cfr+ equilibrium"),
        "chess": ("engine", "stockfish"),
        "antichess": ("engine", "fairy-stockfish"),
        "crazyhouse": ("engine", "fairy-stockfish"),
    }
    for name in GAMES.names():  # `oracle()` is the declared table: an engine has none
        game = GAMES.get(name)
        truth = game.ground_truth
        assert game.has_oracle == (truth is not None and truth.table is not None), name
    assert get_game("liars_dice:numdice=3").ground_truth is None  # over the bound: nothing grades it


class Judge:
    """A ground truth of the test's own: every legal move valued, the first one best."""

    source = "the test's judge"

    def __init__(self) -> None:
        self.asked = 0

    def move_values(self, state: pyspiel.State) -> MoveValues:
        self.asked += 1
        legal = state.legal_actions()
        return MoveValues({a: 1 if a == legal[0] else 0 for a in legal})

    def grade(self, state: pyspiel.State, action: int) -> Grade:
        self.asked += 1
        legal = state.legal_actions()
        return Grade({a: 1.0 if a == legal[0] else 0.0 for a in legal}, source=self.source, exact=False)


@pytest.mark.parametrize("kind", ["exact", "equilibrium"])
def test_the_session_grades_by_the_declared_ground_truth(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tic-tac-toe declared to be graded by the test's judge: every move carries the judge's grade
    (and, for an exact kind, its values), not the minimax table's."""
    game, judge = get_game("tic_tac_toe"), Judge()
    monkeypatch.setattr(game, "ground_truth", GroundTruth(kind, "the test's judge", lambda g: judge))  # type: ignore[arg-type]
    # the table this process built earlier is set aside, and the judge's is not kept after the test
    monkeypatch.setitem(game.__dict__, "_oracle", None)
    monkeypatch.delitem(game.__dict__, "_oracle")
    [job] = single_plan("tic_tac_toe", "standard", "random", "random", 1, 5, None).jobs()
    record = asyncio.run(play_game(job))
    assert game.oracle() is judge and judge.asked >= len(record.moves) > 4
    for move in record.moves:
        assert move.grade is not None and json.loads(move.grade)["source"] == "the test's judge"
        first = min(json.loads(move.legal))
        if kind == "exact":  # its values (a win or a draw) kept beside the grade they map to: 1 or 1/2
            assert move.values_json is not None and move.optimal == (move.action == first)
            assert move.loss == (0.0 if move.action == first else 0.5)
        else:  # an equilibrium grades itself and has no exact values
            assert move.values_json is None and json.loads(move.grade)["exact"] is False
            assert move.loss == (0.0 if move.action == first else 1.0)


@pytest.mark.parametrize("name", ["tic_tac_toe", "chess"])
def test_an_undeclared_game_is_played_unscored(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The session picks no ground truth of its own: chess without its declared engine is not
    graded by one (the session used to fall back to Stockfish for the chess family)."""
    game = get_game(name)
    monkeypatch.setattr(game, "ground_truth", None)
    [job] = single_plan(name, "standard", "random", "random", 1, 5, None).jobs()
    record = asyncio.run(play_game(job))
    assert record.moves and all(m.grade is None and m.values_json is None for m in record.moves)


def test_the_tables_own_grade_comes_back_after_a_declared_judge() -> None:
    """The test above leaves tic-tac-toe graded by its minimax table again."""
    game = get_game("tic_tac_toe")
    assert game.ground_truth is not None and game.ground_truth.name == "minimax table"
    assert not isinstance(game.oracle(), Judge)
