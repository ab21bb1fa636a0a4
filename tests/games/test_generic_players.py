"""The players that read text play the generic games too: a person at a terminal, a model over
HTTP (a loopback server answering the first legal move: the wire and the parsing path), and the
real local model on Breakthrough and one generic game (slow lane)."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import plylab_subprocess, run_args


@pytest.mark.slow
def test_a_person_plays_a_generic_game_at_the_terminal(tmp_path):
    store = tmp_path / "s.sqlite"
    # mnk 3x3, the person first (x): a nonsense line, then every cell in order; taken cells are refused.
    cells = [f"x({r},{c})" for r in range(3) for c in range(3)]
    answers = "\n".join(["hello", *cells, *cells]) + "\n"
    res = plylab_subprocess(
        "run",
        "--game",
        "mnk:m=3,n=3,k=3",
        "--player",
        "human",
        "--opponent",
        "random",
        "--games",
        "1",
        "--store",
        str(store),
        "--quiet",
        input=answers,
    )
    assert res.returncode == 0, res.stderr
    assert "Legal moves: x(0,0), x(0,1)" in res.stdout and "does not name a move" in res.stdout
    [row] = json.loads(plylab_subprocess("report", "--store", str(store), "--format", "json").stdout)[
        "matchups"
    ]
    assert row["game"] == "mnk:m=3,n=3,k=3" and row["games"] == 1 and row["failures"] == 0


@pytest.fixture
def server(monkeypatch):
    from tests.support.fake_openai_server import FakeOpenAIServer

    monkeypatch.setenv("PLAY_API_KEY", "sk-play")
    with FakeOpenAIServer(api_key="sk-play") as srv:
        yield srv


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "formulation", "output"),
    [
        ("breakthrough:rows=5,columns=5", "hidden", "enum"),
        ("pig", "relabel:seed=3", "enum"),
        ("dots_and_boxes", "standard", "text"),
    ],
)
def test_a_model_over_http_plays_generic_games(cli, tmp_path, server, game, formulation, output):
    store = str(tmp_path / "s.sqlite")
    spec = f"llm:model=openai-api/play/m,base_url={server.url},output={output}"
    r = cli(*run_args(game, spec, "random", formulation=formulation, games=2, store=store))
    assert r.code == 0, r.err
    [row] = json.loads(cli("report", "--store", store, "--format", "json").out)["matchups"]
    assert row["games"] == 2 and row["failures"] == 0 and row["usage"]["calls"] > 0
    prompt = server.requests[0]["messages"][-1]["content"]
    if formulation.startswith("relabel"):
        assert "pig" not in prompt.lower()  # the game's name is hidden, moves are code words


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "opponent"), [("breakthrough:rows=6,columns=6", "random"), ("mnk:m=3,n=3,k=3", "optimal")]
)
def test_the_local_model_plays_breakthrough_and_a_generic_game(cli, tmp_path, game, opponent):
    """Gemma, constrained to the legal labels (output=enum), finishes a game; any failed move is
    recorded as a failure of the model, never a crash of the run."""
    store = str(tmp_path / "llm.sqlite")
    r = cli(
        "run",
        "--game",
        game,
        "--player",
        "llm:model=local,output=enum,max_tokens=24",
        "--opponent",
        opponent,
        "--games",
        "1",
        "--store",
        store,
        "--quiet",
    )
    assert r.code == 0, r.err
    [row] = json.loads(cli("report", "--store", store, "--format", "json").out)["matchups"]
    assert row["game"] == game and row["games"] == 1
    assert row["wins"] + row["draws"] + row["losses"] + row["failures"] == 1
    assert row["usage"]["calls"] > 0
