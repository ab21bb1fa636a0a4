"""Table 2's † footnote and the ≠ mark, on scripted model replies (a loopback OpenAI-compatible server:
only the failure path and the marking logic are exercised; the numbers come from real games)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plylab.paper.report import NEQ, disjoint, table_data


@pytest.fixture
def server(monkeypatch):
    from tests.support.fake_openai_server import FakeOpenAIServer

    monkeypatch.setenv("FAKE_API_KEY", "sk-fake")
    with FakeOpenAIServer(api_key="sk-fake") as srv:
        yield srv


MODEL = "openai-api/fake/gpt-5-nano"  # pairs with the paper's "GPT-5 nano" row by name


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_marks_follow_the_intervals_and_failures_get_a_dagger(cli, tmp_path, server):
    from tests.support.fake_openai_server import Behaviour

    store = str(tmp_path / "s.sqlite")
    opts = f"base_url={server.url}"
    # With nothing queued the server answers the first legal move: real games, real (poor) optimality.
    r = cli(
        "paper",
        "run",
        "table2",
        "--model",
        MODEL,
        "--games",
        "4",
        "--player-options",
        opts,
        "--store",
        store,
        "--quiet",
    )
    assert r.code == 0, r.err
    data = json.loads(cli("paper", "report", "table2", "--store", store, "--format", "json").out)
    [mine] = [row for row in data["rows"] if row["source"] == "this run"]
    assert mine["paper_model"] == "GPT-5 nano"
    md = cli("paper", "report", "table2", "--store", store).out
    [line] = [ln for ln in md.splitlines() if ln.startswith(f"| llm:model={MODEL}")]
    cells = [c.strip() for c in line.strip("|").split("|")][2:]
    [typed] = [row for row in table_data(Path(store), "table2").rows if row.source == "this run"]
    for col, text in zip(("tic_tac_toe", "nim"), cells):
        c, t = mine["cells"][col], typed.cells[col]
        assert c["disjoint"] == t.disjoint == disjoint(t.reproduced, t.published)
        assert (NEQ in text) == bool(c["disjoint"]), (col, text, c)
    assert (
        "deviations from the paper's protocol: 4 games per matchup" in md
        and "base_url" not in md.split("|")[0]
    )
    assert md.splitlines().index(line) + 1 == next(
        i for i, ln in enumerate(md.splitlines()) if ln.startswith("| GPT-5 nano | paper")
    )

    # Replies that name no move: every game ends in a failure at the model's first move.
    server.queue(*[Behaviour(text="I would rather not say.") for _ in range(40)])
    r = cli(
        "paper",
        "run",
        "table2",
        "--model",
        MODEL,
        "--games",
        "2",
        "--player-options",
        opts,
        "--store",
        store,
        "--run",
        "garbage",
        "--seed",
        "7",
        "--quiet",
    )
    assert r.code == 0, r.err
    md = cli("paper", "report", "table2", "--store", store, "--run", "garbage").out
    [line] = [ln for ln in md.splitlines() if ln.startswith(f"| llm:model={MODEL}")]
    assert line.count("†") == 2 and "missing" in line  # no scored move: optimality is missing, not zero
    assert "failed to return a legal action in 2 games on tic-tac-toe" in md
    assert "failed to return a legal action in 2 games on Nim" in md


@pytest.mark.slow
def test_table3_marks_failed_games_per_opponent(cli, tmp_path, server):
    """Table 3 has no F column, so a game the model forfeits gets the † too: 0 wins and 0 moves
    from failures must not read as a model that played and lost."""
    from tests.support.fake_openai_server import Behaviour

    store = str(tmp_path / "s.sqlite")
    server.queue(*[Behaviour(text="I would rather not say.") for _ in range(40)])
    args = ("paper", "run", "table3", "--model", MODEL, "--games", "2", "--store", store, "--quiet")
    r = cli(*args, "--player-options", f"base_url={server.url}")
    assert r.code == 0, r.err
    md = cli("paper", "report", "table3", "--store", store).out
    [line] = [ln for ln in md.splitlines() if ln.startswith(f"| llm:model={MODEL}")]
    assert line.count("†") == 4  # win rate and moves, vs Random and vs MCTS
    assert "failed to return a legal action in 2 games vs random" in md
    assert "failed to return a legal action in 2 games vs mcts" in md
