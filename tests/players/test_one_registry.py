"""One player base and one registry for every game family (issue 21, point 3): Clue's players are
`BasePlayer`s registered beside the two-player games' players, `plylab players` lists both
families, and a spec of the wrong family is refused in one line naming the players accepted."""

from __future__ import annotations

import json

import pytest

from plylab.clue import ClueDecision, CluePlayer, ClueView
from plylab.players import PLAYERS, BasePlayer, Decision, Player, Turn, family_names, resolve
from tests.support.cli import run_args


def test_clue_players_are_core_players_in_the_core_registry():
    for name in ("clue-random", "clue-matrix", "clue-oracle", "clue-llm"):
        cls = PLAYERS.get(name)
        assert issubclass(cls, CluePlayer) and issubclass(cls, BasePlayer) and cls.family == "clue"
    for name in ("random", "mcts", "llm"):
        cls = PLAYERS.get(name)
        assert issubclass(cls, Player) and issubclass(cls, BasePlayer) and cls.family == "two-player"
    # the shared base holds what both families used to repeat: stream, context, prepare, close
    for member in ("rng", "prepare", "close", "act"):
        assert member not in vars(CluePlayer) and member in vars(BasePlayer)
    # the act() contract is the base's, with each family's view and decision as its type arguments
    assert CluePlayer.__orig_bases__[0].__args__[1:] == (ClueView, ClueDecision)  # type: ignore[attr-defined]
    assert Player.__orig_bases__[0].__args__[1:] == (Turn, Decision)  # type: ignore[attr-defined]


def test_one_function_resolves_every_family_and_checks_the_family():
    _, cls, options = resolve("clue-random:accuse=0.5", BasePlayer)
    assert cls.name == "clue-random" and options.accuse == 0.5  # type: ignore[attr-defined]
    _, cls, _ = resolve("mcts", BasePlayer)
    assert cls.name == "mcts"
    assert family_names(CluePlayer) == ["clue-llm", "clue-matrix", "clue-oracle", "clue-random"]  # name order
    assert {"random", "mcts", "optimal", "llm"} <= set(family_names(Player))
    assert not set(family_names(Player)) & set(family_names(CluePlayer))


def test_players_lists_both_families(cli):
    res = cli("players", "--format", "json")
    assert res.code == 0, res.err
    rows = {r["name"]: r for r in json.loads(res.out)["players"]}
    assert rows["clue-llm"]["family"] == "clue" and rows["clue-llm"]["command"] == "plylab clue run"
    assert rows["clue-llm"]["uses_model"] and "matrix" in rows["clue-llm"]["options"]
    assert rows["random"]["family"] == "two-player" and rows["random"]["command"] == "plylab run"
    table = cli("players").out
    assert "clue-oracle" in table and "mcts" in table


def test_a_clue_player_given_to_plylab_run_is_one_line_exit_2(cli, tmp_path):
    res = cli(*run_args("tic_tac_toe", "clue-random", "random", games=1, store=tmp_path / "s.sqlite"))
    assert res.code == 2 and res.err.count("\n") == 1 and "Traceback" not in res.err, res.err
    assert "player 'clue-random' plays clue games (`plylab clue run`)" in res.err
    assert (
        "`plylab run` takes: best_response, cbr, equilibrium, fairy-stockfish, gnubg, gnugo, human, llm, mcts, memento, "
        "optimal, random, reaper, stockfish" in res.err
    )
    assert not (tmp_path / "s.sqlite").exists()


@pytest.mark.parametrize("spec", ["random", "mcts:iterations=10", "llm:model=local"])
def test_a_two_player_spec_given_to_clue_run_is_one_line_exit_2(cli, tmp_path, spec):
    three = ["-p", "clue-random", "-p", "clue-matrix", "-p", spec]
    res = cli("clue", "run", *three, "--store", str(tmp_path / "s.sqlite"), "-q")
    assert res.code == 2 and res.err.count("\n") == 1 and "Traceback" not in res.err, res.err
    name = spec.split(":")[0]
    assert f"player '{name}' plays two-player games (`plylab run`)" in res.err
    assert "`plylab clue run` takes: clue-llm, clue-matrix, clue-oracle, clue-random" in res.err
