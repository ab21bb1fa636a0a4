"""Grid plans from YAML and every report format."""

import csv
import io
import json

import pytest

from tests.support.minimax import rescore

CONFIG = """
name: grid
seed: 5
games_per_matchup: 2
games: [tic_tac_toe, nim]
formulations: [standard]
players: [random, "mcts:sims=20"]
opponents: [optimal]
"""


@pytest.fixture
def grid_store(cli, tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(CONFIG)
    store = tmp_path / "s.sqlite"
    res = cli("run", "--config", str(plan), "--store", str(store), "--quiet", "--concurrency", "4")
    assert res.code == 0, res.err
    return store


def test_grid_plan_runs_every_matchup(cli, grid_store):
    rows = json.loads(cli("report", "--store", str(grid_store), "--format", "json").out)["matchups"]
    assert {(r["game"], r["player"]) for r in rows} == {
        (g, p) for g in ("tic_tac_toe", "nim") for p in ("random", "mcts:sims=20")
    }
    required = {
        "game",
        "formulation",
        "player",
        "opponent",
        "games",
        "wins",
        "draws",
        "losses",
        "failures",
        "optimality",
        "usage",
        "tokens_per_move",
    }
    for r in rows:
        assert required <= set(r) and r["games"] == 2 and r["run"] == "grid"
        assert r["wins"] + r["draws"] + r["losses"] + r["failures"] == 2
        assert set(r["optimality"]) >= {"rate", "low", "high", "scored"}


@pytest.mark.slow
def test_every_format_renders(cli, grid_store):
    md = cli("report", "--store", str(grid_store), "--format", "markdown").out
    assert md.startswith("| game | formulation |") and "mcts:sims=20" in md
    rows = list(csv.reader(io.StringIO(cli("report", "--store", str(grid_store), "--format", "csv").out)))
    assert rows[0][:4] == ["game", "formulation", "player", "opponent"] and len(rows) == 5
    tex = cli("report", "--store", str(grid_store), "--format", "latex").out
    assert r"\begin{tabular}" in tex and r"tic\_tac\_toe" in tex
    table = cli("report", "--store", str(grid_store)).out
    assert "optimality" in table and "random" in table
    pivot = cli(
        "report", "--store", str(grid_store), "--format", "markdown", "--table", "outcomes", "--by", "game"
    ).out
    header = pivot.splitlines()[0]
    assert "tic_tac_toe" in header and "nim" in header


def test_listing_commands(cli):
    games = json.loads(cli("games", "--format", "json").out)["games"]
    assert {g["name"] for g in games} >= {"tic_tac_toe", "nim", "connect_four"}
    assert all("standard" in g["formulations"] for g in games)
    players = {p["name"] for p in json.loads(cli("players", "--format", "json").out)["players"]}
    assert {
        "random",
        "mcts",
        "optimal",
        "human",
        "llm",
        "reaper",
        "cbr",
        "memento",
        "clue-oracle",
        "clue-llm",
    } <= players


@pytest.mark.slow
def test_pivot_tables_by_formulation(cli, tmp_path):
    store = tmp_path / "f.sqlite"
    for form in ("standard", "magic_square"):
        assert (
            cli(
                "run",
                "--game",
                "tic_tac_toe",
                "--formulation",
                form,
                "--player",
                "random",
                "--opponent",
                "optimal",
                "--games",
                "4",
                "--store",
                str(store),
                "--quiet",
            ).code
            == 0
        )
    data = json.loads(
        cli(
            "report",
            "--store",
            str(store),
            "--table",
            "optimality",
            "--by",
            "formulation",
            "--format",
            "json",
        ).out
    )
    assert data["columns"] == ["standard", "magic_square"]
    [row] = data["rows"]
    assert row["player"] == "random" and set(row["cells"]) == {"standard", "magic_square"}
    for form, cell in row["cells"].items():  # each cell is random's rate there, by an independent minimax
        truth = rescore(store, "tic_tac_toe", "tic_tac_toe", player="random", formulation=form)
        assert truth.scored > 0 and truth.agree == truth.moves
        assert cell["rate"] == pytest.approx(truth.optimal / truth.scored, abs=1e-3)
    for table in ("recognition", "tokens"):
        for fmt in ("markdown", "csv", "latex"):
            out = cli(
                "report", "--store", str(store), "--table", table, "--by", "formulation", "--format", fmt
            )
            assert out.code == 0 and "magic" in out.out
