"""The results the core harness must reproduce (issue 2), through the real CLI and store."""

import json


def report(cli, store, *extra):
    res = cli("report", "--store", str(store), "--format", "json", *extra)
    assert res.code == 0, res.err
    return json.loads(res.out)["matchups"]


def test_tic_tac_toe_optimal_vs_optimal_is_always_a_draw(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    res = cli("run", "--game", "tic_tac_toe", "--player", "optimal", "--opponent", "optimal", "--games", "20",
              "--store", str(store), "--quiet")
    assert res.code == 0, res.err
    [row] = report(cli, store)
    assert (row["games"], row["draws"], row["wins"], row["losses"], row["failures"]) == (20, 20, 0, 0, 0)
    assert row["optimality"]["rate"] == 1.0 and row["optimality"]["scored"] > 0


def test_nim_optimal_vs_optimal_second_player_always_wins(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli("run", "--game", "nim", "--player", "optimal", "--opponent", "optimal", "--games", "20",
               "--store", str(store), "--quiet").code == 0
    [row] = report(cli, store)
    # Sides switch after half: the player moves first (and loses) in games 0-9, second (and wins) in 10-19.
    assert (row["wins"], row["losses"], row["draws"]) == (10, 10, 0)


def test_random_never_beats_optimal_at_tic_tac_toe(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli("run", "--game", "tic_tac_toe", "--player", "random", "--opponent", "optimal", "--games", "100",
               "--store", str(store), "--quiet").code == 0
    [row] = report(cli, store)
    assert row["games"] == 100 and row["wins"] == 0
    assert row["optimality"]["rate"] < 1.0  # random does blunder, and the scorer sees it


def test_mcts_on_nim_against_optimal_completes_and_is_scored(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli("run", "--game", "nim", "--player", "mcts:sims=1000", "--opponent", "optimal", "--games", "6",
               "--store", str(store), "--quiet").code == 0
    [row] = report(cli, store)
    assert row["games"] == 6
    opt = row["optimality"]
    assert opt["scored"] > 0 and 0.0 <= opt["low"] <= opt["rate"] <= opt["high"] <= 1.0
    assert opt["cluster_low"] <= opt["rate"] <= opt["cluster_high"]


def test_connect_four_is_scored_exactly(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli("run", "--game", "connect_four", "--player", "mcts:sims=200", "--opponent", "optimal", "--games", "4",
               "--store", str(store), "--quiet").code == 0
    assert cli("run", "--game", "connect_four", "--player", "optimal", "--opponent", "mcts:sims=200", "--games",
               "2", "--store", str(store), "--quiet").code == 0
    rows = {r["player"]: r for r in report(cli, store)}
    mcts, optimal = rows["mcts:sims=200"], rows["optimal"]
    assert mcts["optimality"]["scored"] > 0 and mcts["optimality"]["rate"] < 1.0
    assert optimal["optimality"]["rate"] == 1.0
    # The stricter rate by exact score exists, and cannot exceed the rate by value.
    assert "optimality_score" in mcts and mcts["optimality_score"]["rate"] <= 1.0
    assert mcts["losses"] >= 3  # the first-player win is forced against a perfect opponent
