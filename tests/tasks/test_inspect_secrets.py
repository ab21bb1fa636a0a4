"""A key the server echoes never reaches inspect's logs: `inspect eval plylab/game` and `plylab/suite`
against a loopback OpenAI-compatible server that quotes the key back in every reply (bare, and as
`Bearer <key>`, in the reply's text and in a field of the raw response); the `.eval` file, every
member unzipped, holds neither the key nor any part of it."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from plylab.secrets import REDACTED
from tests.models.hostile_server import Hostile, HostileServer
from tests.tasks.test_inspect_game import eval_in_process, model_events
from tests.tasks.test_inspect_suite import build, eval_suite

KEY = "plylab-echo-7Qx2Vb9Lm4Tz8Kw1"  # no provider's shape: found by its value, not a pattern
# Each test names its own model: inspect keeps a model by name for the process, with the server
# (now closed) of the test that first asked for it.


def echo(status: int = 200) -> Hostile:
    """A reply quoting KEY: in its text and its id (a field of the raw response alone); with an
    error `status`, in the error's message."""
    if status != 200:
        return Hostile(
            status=status, body=json.dumps({"error": {"message": f"bad key {KEY}", "type": "auth"}})
        )
    said = f"ANSWER: 1\n(you sent {KEY}; Authorization: Bearer {KEY})"
    reply = {
        "id": f"echo-{KEY}",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": said}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
    }
    return Hostile(body=json.dumps(reply))


@pytest.fixture
def echoing(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """A loopback server (ECHO_BASE_URL, key ECHO_API_KEY) that quotes the key in every reply."""
    monkeypatch.setenv("ECHO_API_KEY", KEY)
    with HostileServer(api_key=KEY) as server:
        monkeypatch.setenv("ECHO_BASE_URL", server.url)
        server.queue(*[echo()] * 200)
        yield server


def unzipped(log_dir: Path) -> bytes:
    """Every member of every `.eval` log in `log_dir`, inflated."""
    out = b""
    for path in log_dir.rglob("*.eval"):
        with zipfile.ZipFile(path) as z:
            out += b"".join(z.read(name) for name in z.namelist())
    assert out
    return out


def assert_no_key(log_dir: Path) -> None:
    data = unzipped(log_dir)
    for part in (KEY, KEY[:12], KEY[-12:]):
        assert part.encode() not in data
    assert REDACTED.encode() in data  # the echo was there, and was scrubbed


@pytest.mark.slow
def test_a_key_the_server_echoes_is_in_no_game_log(tmp_path: Path, echoing: HostileServer) -> None:
    log = eval_in_process(
        tmp_path, "openai-api/echo/game", game="nim", opponent="random", games=2, player="on_failure=random"
    )
    assert log.status == "success", log.error
    assert len(echoing.requests) >= 2  # the model was asked, with the key
    assert all(h.get("Authorization") == f"Bearer {KEY}" for h in echoing.headers)
    events = [e for s in log.samples for e in model_events(s)]
    assert events and all(REDACTED in e.output.completion for e in events)
    assert all(e.call is not None and REDACTED in str(e.call.response) for e in events)
    assert_no_key(tmp_path)


@pytest.mark.slow
def test_a_key_the_server_echoes_is_in_no_suite_log(
    tmp_path: Path, echoing: HostileServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    build(tmp_path, 3)
    log = eval_suite(tmp_path, "openai-api/echo/suite", suite="t")
    assert log.status == "success", log.error
    assert len(echoing.requests) == 3
    assert_no_key(tmp_path / "logs")


@pytest.mark.slow
def test_a_key_in_the_servers_error_is_in_no_log(tmp_path: Path, echoing: HostileServer) -> None:
    """A server that refuses with the key in its error: the failed call's event (error, traceback,
    raw response) holds it scrubbed."""
    echoing.reset()
    echoing.queue(*[echo(400)] * 20)
    log = eval_in_process(
        tmp_path,
        "openai-api/echo/error",
        generate={"max_retries": 0},
        game="nim",
        opponent="random",
        games=1,
        player="on_failure=random",
    )
    assert echoing.requests
    assert_no_key(tmp_path)
    assert log.status in ("success", "error")
