"""`plylab stated`: a model's stated strategy asked at every information set, and its exploitability."""

from __future__ import annotations

import json

import pytest

from tests.support.fake_openai_server import Behaviour, FakeOpenAIServer

SPEC = "llm:model=openai-api/fake/m,output=distribution"


@pytest.fixture
def server(monkeypatch):
    with FakeOpenAIServer() as srv:
        monkeypatch.setenv("FAKE_BASE_URL", srv.url)
        monkeypatch.setenv("FAKE_API_KEY", "sk-fake")
        yield srv


@pytest.mark.slow
def test_always_half_and_half_has_openspiels_uniform_exploitability(cli, server, tmp_path) -> None:
    server.queue(*[Behaviour(text='{"Pass": 0.5, "Bet": 0.5}') for _ in range(12)])
    store = tmp_path / "s.sqlite"
    r = cli("stated", "--game", "kuhn_poker", "--player", SPEC, "--store", str(store), "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert out["exploitability"] == pytest.approx(0.4583, abs=5e-5)
    assert (out["infosets"], out["uniform"]) == (12, 0) and len(server.requests) == 12
    again = cli("stated", "--game", "kuhn_poker", "--player", SPEC, "--store", str(store))
    assert again.code == 0, again.err
    assert "exploitability 0.4583" in again.out and len(server.requests) == 12  # the store's replies


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, message",
    [
        (["--game", "tic_tac_toe", "--player", SPEC], "has no equilibrium"),
        (["--game", "kuhn_poker", "--player", "random"], "states no strategy"),
        (["--game", "kuhn_poker", "--player", "llm:model=openai-api/fake/m"], "output=distribution"),
    ],
)
def test_bad_input_is_one_line(cli, server, args, message) -> None:
    r = cli("stated", *args)
    assert r.code == 2 and message in r.err and len(r.err.strip().splitlines()) == 1


@pytest.mark.slow
def test_moves_are_named_and_a_rescaled_answer_is_said(cli, server) -> None:
    """Every move was `Action(id=0, player=0)` (the game's names, not the state's), and a stated
    `{"Pass": 1, "Bet": 1}` was rescaled to half and half without a word (issue 46 point 8)."""
    rescaled = [Behaviour(text='{"Pass": 1, "Bet": 1}'), Behaviour(text='{"Pass": 1e308, "Bet": 1e308}')]
    server.queue(*rescaled + [Behaviour(text='{"Pass": 0.5, "Bet": 0.5}')] * 10)
    r = cli("stated", "--game", "kuhn_poker", "--player", SPEC)
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert "2 answers did not sum to 1" in lines[1]
    rows = lines[2:]
    assert len(rows) == 12 and "Action(" not in r.out
    assert all("Pass: 0.500" in row and "Bet: 0.500" in row for row in rows)
    assert sum("(summed to 2, rescaled)" in row for row in rows) == 1
    assert sum("(summed to more than 1.798e+308, rescaled)" in row for row in rows) == 1
    js = cli("stated", "--game", "kuhn_poker", "--player", SPEC, "--format", "json")
    out = json.loads(js.out)
    assert all(names == {"0": "Pass", "1": "Bet"} for names in out["moves"].values())
