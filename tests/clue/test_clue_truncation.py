"""Clue replies cut off at max_tokens are counted in the Clue report (issue 19, point 4), through a
real loopback OpenAI-compatible server that ends its replies with finish_reason=length."""

from __future__ import annotations

import json

import pytest

from tests.support.fake_openai_server import Behaviour, FakeOpenAIServer


@pytest.fixture
def cut_server(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CUT_API_KEY", "sk-cut")
    with FakeOpenAIServer(api_key="sk-cut") as server:
        monkeypatch.setenv("CUT_BASE_URL", server.url)
        yield server


@pytest.mark.slow
def test_cut_replies_are_counted_in_the_clue_report(cli, tmp_path, cut_server) -> None:
    store = tmp_path / "clue.sqlite"
    cut_server.queue(*[Behaviour(text='{"action": "sugg', finish_reason="length")] * 40)
    args = ["clue", "study", "--condition", "baseline", "--model", "openai-api/cut/m", "--games", "1"]
    args += ["--turn-limit", "6"]
    assert cli(*args, "--seed", "1", "--store", str(store), "--quiet").code == 0
    res = cli("clue", "report", "--store", str(store), "--format", "json")
    assert res.code == 0, res.err
    [model] = [g["model"] for g in json.loads(res.out)["groups"] if g["model"]]  # three seats, one spec
    assert model["turns"] >= 1 and model["truncated"] == model["turns"]
    md = cli("clue", "report", "--store", str(store), "--format", "markdown").out
    assert "| truncated |" in md
    paper = cli("paper", "report", "clue-accuracy", "--store", str(store), "--format", "json").out
    assert json.loads(paper)["truncated"] == model["truncated"]
