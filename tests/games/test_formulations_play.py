"""Every registered formulation plays end to end through the CLI (issue 4's checked interface)."""

import json

import pytest

from plylab.games import GAMES
from plylab.games.generic import Generic

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


@pytest.mark.parametrize("game, formulation", FORMULATIONS)
def test_optimal_stays_optimal_under_every_formulation(cli, tmp_path, game, formulation):
    store = tmp_path / "s.sqlite"
    res = cli(
        "run",
        "--game",
        game,
        "--formulation",
        formulation,
        "--player",
        "optimal",
        "--opponent",
        "random",
        "--games",
        "2",
        "--store",
        str(store),
        "--quiet",
    )
    assert res.code == 0, res.err
    [row] = json.loads(cli("report", "--store", str(store), "--format", "json").out)["matchups"]
    assert row["formulation"] == formulation and row["failures"] == 0
    assert row["optimality"]["rate"] == 1.0 and row["optimality"]["scored"] > 0


@pytest.mark.model
@pytest.mark.slow
def test_the_local_model_plays_every_formulation_without_failures(cli, tmp_path):
    """The real Gemma, constrained to the legal labels of each surface, finishes a game under each one."""
    store = tmp_path / "llm.sqlite"
    for game, formulation in FORMULATIONS:
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
    assert {(r["game"], r["formulation"]) for r in rows} == set(FORMULATIONS)
    for r in rows:
        assert r["games"] == 1 and r["failures"] == 0, (r["game"], r["formulation"], r["failure_kinds"])
        assert r["usage"]["calls"] > 0 and r["tokens_per_move"]["mean"] > 0
