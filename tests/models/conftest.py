"""Fixtures for the model door: the real local model (loaded once) and a loopback OpenAI server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fake_openai_server import FakeOpenAIServer

API_KEY = "sk-test-9f8e7d6c5b4a-never-store-me"


@pytest.fixture
def api_key() -> str:
    return API_KEY


@pytest.fixture(scope="module")
def _server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(api_key=API_KEY) as server:
        yield server


@pytest.fixture
def server(_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> FakeOpenAIServer:
    """A clean script and log per test; the key the provider reads is in the environment only."""
    monkeypatch.setenv("FAKE_API_KEY", API_KEY)
    _server.reset()
    _server.delay = 0.0
    return _server


@pytest.fixture
def remote(server: FakeOpenAIServer):
    """The loopback server as an inspect `openai-api` model, with a short retry backoff."""
    from plylab.models import get_model

    return get_model("openai-api/fake/test-model", base_url=server.url, backoff=0.01)
