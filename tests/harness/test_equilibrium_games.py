"""Games of hidden information scored against their equilibrium, end to end: run, report, solve,
the equilibrium and best-response players, and the replay's payoffs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plylab.games import get_game
from plylab.oracles.equilibrium import EquilibriumOracle


def run(
    cli, store: Path, player: str, opponent: str, games: int, name: str, game: str = "kuhn_poker"
) -> None:
    r = cli(
        "run", "--game", game, "--player", player, "--opponent", opponent,
        "--games", str(games), "--store", str(store), "--run", name,
    )  # fmt: skip
    assert r.code == 0, r.err


def test_kuhn_poker_has_its_equilibrium_attached() -> None:
    game = get_game("kuhn_poker")
    assert game.has_oracle
    assert isinstance(game.oracle(), EquilibriumOracle)
    assert get_game("liars_dice").has_oracle and get_game("leduc_poker").has_oracle
    assert not get_game("liars_dice:numdice=3").has_oracle  # over the bound: played unscored


@pytest.mark.slow  # over 0.9 s on two cores
def test_a_run_against_the_equilibrium_is_reported_with_intervals(cli, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run(cli, store, "random", "equilibrium", 30, "r")
    r = cli("report", "--store", str(store), "--format", "json")
    assert r.code == 0, r.err
    (row,) = json.loads(r.out)["matchups"]
    eq = row["equilibrium"]
    assert eq["decisions"] >= 30 and 0 < eq["informative"] <= eq["decisions"]
    loss = eq["loss"]
    assert loss["mean"] > 0.05 and loss["low"] <= loss["mean"] <= loss["high"]  # random gives chips away
    rate = eq["equilibrium_rate"]
    assert 0 < rate["rate"] < 1 and rate["low"] <= rate["rate"] <= rate["high"]
    assert eq["payoff"]["n"] == 30 and eq["payoff"]["low"] <= eq["payoff"]["mean"] <= eq["payoff"]["high"]
    ex = eq["exploitability"]
    assert ex["low"] <= ex["value"] <= ex["high"] and ex["infosets"] == 12
    assert ex["decisions"] == eq["decisions"]
    table = cli("report", "--store", str(store))
    assert table.code == 0, table.err
    assert (
        "expected loss" in table.out and "exploitability" in table.out and "equilibrium action" in table.out
    )
    csv = cli("report", "--store", str(store), "--table", "equilibrium", "--format", "csv")
    assert csv.code == 0 and csv.out.splitlines()[0].startswith(
        "run,game,formulation,player,opponent,decisions"
    )


@pytest.mark.slow
def test_the_equilibrium_table_names_each_row_s_run_and_formulation_in_every_format(
    cli, tmp_path: Path
) -> None:
    """A standard and a relabelled Kuhn matchup are two distinguishable rows (issue 38: they printed alike)."""
    store = tmp_path / "s.sqlite"
    for name, formulation in (("plain", "standard"), ("shuffled", "relabel")):
        r = cli("run", "--game", "kuhn_poker", "--formulation", formulation, "--player", "random",
                "--opponent", "equilibrium", "--games", "4", "--store", str(store), "--run", name)  # fmt: skip
        assert r.code == 0, r.err
    for fmt in ("table", "csv", "markdown", "latex"):
        out = cli("report", "--store", str(store), "--table", "equilibrium", "--format", fmt)
        assert out.code == 0, out.err
        rows = [line for line in out.out.splitlines() if "kuhn" in line and "random" in line]
        assert len(rows) == 2 and rows[0] != rows[1], fmt
        assert "plain" in rows[0] and "standard" in rows[0] and "shuffled" in rows[1] and "relabel" in rows[1]


@pytest.mark.slow  # over 0.9 s on two cores
def test_the_equilibrium_player_is_deterministic_in_its_seed(cli, tmp_path: Path) -> None:
    runs = []
    for name in ("a", "b"):
        store = tmp_path / f"{name}.sqlite"
        run(cli, store, "equilibrium", "optimal", 10, "x")
        r = cli("report", "--store", str(store), "--format", "json")
        runs.append(json.loads(r.out)["matchups"][0]["equilibrium"])
    assert runs[0] == runs[1]
    # the equilibrium's own decisions lose (almost) nothing against it
    assert runs[0]["loss"]["mean"] < 0.01 and runs[0]["equilibrium_rate"]["rate"] == 1.0


@pytest.mark.slow  # over 0.9 s on two cores
def test_a_best_response_exploits_an_always_random_player(cli, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run(cli, store, "random", "equilibrium", 20, "habits")
    run(cli, store, "best_response:run=habits", "random", 60, "exploit")
    r = cli("report", "--store", str(store), "--run", "exploit", "--format", "json")
    (row,) = json.loads(r.out)["matchups"]
    assert row["equilibrium"]["payoff"]["mean"] > 0.3  # a random player loses about half a chip a game
    bad = cli("run", "--game", "kuhn_poker", "--player", "best_response:run=nope", "--opponent", "random",
              "--games", "2", "--store", str(store))  # fmt: skip
    assert bad.code != 0 and "'nope'" in bad.err and "Traceback" not in bad.err


def test_solve_prints_the_value_and_the_actions_at_an_information_set(cli) -> None:
    r = cli("solve", "--game", "kuhn_poker")
    assert r.code == 0, r.err
    assert "Player 1 (seat 0) -0.0556" in r.out and "exploitability" in r.out and "cfr+" in r.out
    r = cli("solve", "--game", "kuhn_poker", "--moves", "Deal:0 Deal:2 Bet", "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert out["to_move"] == 1 and out["information_set"] == "2b"  # seats from 0, as the store numbers them
    assert out["actions"]["Bet"]["value"] == pytest.approx(2.0) and out["actions"]["Pass"][
        "loss"
    ] == pytest.approx(3.0)
    assert out["actions"]["Bet"]["probability"] > 0.99
    bad = cli("solve", "--game", "kuhn_poker", "--moves", "Deal:0 Deal:0")
    assert bad.code != 0 and "not legal there" in bad.err and "Traceback" not in bad.err


@pytest.mark.slow  # over 0.9 s on two cores
def test_the_replay_shows_the_equilibrium_and_plots_payoffs(tmp_path: Path, cli) -> None:
    from plylab.harness.store import Store
    from plylab.reports.data import replay_payload
    from plylab.reports.valueline import series

    store = tmp_path / "s.sqlite"
    run(cli, store, "random", "equilibrium", 4, "r")
    s = Store(store, create=False)
    try:
        g = s.games()[0]
        payload = replay_payload(g, s.moves(g.id), "r")
    finally:
        s.close()
    step = payload["steps"][0]
    decision = step["decision"]  # the one graded decision every page reads (oracles.graded.Decision)
    assert decision["kind"] == "equilibrium" and decision["loss"] is not None
    assert decision["probability"] is not None
    assert all(m["probability"] is not None and m["graded"] is not None for m in step["legal"])
    points = series(payload["steps"])
    assert all(p["payoff"] is not None and -1 <= p["value"] <= 1 for p in points)


def test_the_equilibrium_player_is_refused_where_there_is_no_equilibrium(cli, tmp_path: Path) -> None:
    r = cli("run", "--game", "tic_tac_toe", "--player", "equilibrium", "--opponent", "random",
            "--games", "2", "--store", str(tmp_path / "s.sqlite"))  # fmt: skip
    assert r.code != 0 and "cannot play 'tic_tac_toe'" in r.err and "kuhn_poker" in r.err
    assert "Traceback" not in r.err


@pytest.mark.parametrize("spec", ["optimal", "equilibrium"])
def test_optimal_and_equilibrium_sample_the_equilibrium(spec: str) -> None:
    """Kuhn: with K facing a bet both always call; with Q opening, they follow the equilibrium's mix."""
    import asyncio
    from collections import Counter

    from plylab.players import Turn, make_player

    game = get_game("kuhn_poker")
    oracle = game.oracle()
    assert isinstance(oracle, EquilibriumOracle)

    def state_after(history: list[int]):  # noqa: ANN202
        state = game.new_state()
        for a in history:
            state.apply_action(a)
        return state

    f = game.formulation("standard")
    counts: Counter[int] = Counter()
    for seed in range(400):
        player = make_player(spec, game, seed)
        facing = state_after([0, 2, 1])  # J, K; player 1 bets
        assert asyncio.run(player.act(Turn(game, f, facing, 1, 1, "k"))).action == 1
        opening = state_after([2, 0])  # player 1 holds K: bets with 3 times the J bluff
        counts[asyncio.run(player.act(Turn(game, f, opening, 0, 0, "k"))).action] += 1
    expected = oracle.policy(state_after([2, 0]))[1]
    assert abs(counts[1] / 400 - expected) < 0.08
