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
