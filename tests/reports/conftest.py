"""A small real store for the report tests: classic games, an LLM player behind a loopback
OpenAI-compatible server (scripted replies: it always plays the first legal move it is offered),
and one Clue game, then the site built from it once per session."""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from plylab.cli import main
from tests.support.browser import checked_page
from tests.support.cli import run_args

LLM_REPLY_REASONING = "I take {move}, the first move listed."


class _ChatHandler(BaseHTTPRequestHandler):
    """Answers /models and /chat/completions like an OpenAI-compatible server."""

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send(
            {"object": "list", "data": [{"id": "m", "object": "model", "created": 0, "owned_by": "test"}]}
        )

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = request["messages"][-1]["content"]
        if isinstance(prompt, list):
            prompt = " ".join(part.get("text", "") for part in prompt)
        move = re.findall(r"^- (.+)$", prompt, re.MULTILINE)[0]  # a label may hold spaces: 'pile 1, take 1'
        # A separate reasoning trace (as DeepSeek-style servers send it) and the move in the reply.
        reasoning = LLM_REPLY_REASONING.format(move=move)
        content = json.dumps({"reasoning": reasoning, "action": move})
        self._send(
            {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "created": 0,
                "model": request["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content, "reasoning_content": reasoning},
                    }
                ],
                "usage": {
                    "prompt_tokens": len(prompt) // 4,
                    "completion_tokens": len(content) // 4,
                    "total_tokens": len(prompt) // 4 + len(content) // 4,
                },
            }
        )


@pytest.fixture(scope="session")
def chat_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ChatHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    old = os.environ.get("FAKE_API_KEY")
    os.environ["FAKE_API_KEY"] = "test-key"
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        if old is None:
            os.environ.pop("FAKE_API_KEY", None)
        else:
            os.environ["FAKE_API_KEY"] = old


def _plylab(*args: str) -> None:
    assert main(list(args)) == 0, f"plylab {' '.join(args)} failed"


@pytest.fixture(scope="session")
def report_store(tmp_path_factory: pytest.TempPathFactory, chat_server: str) -> Path:
    store = tmp_path_factory.mktemp("report-store") / "s.sqlite"
    s = str(store)
    _plylab(
        *run_args("tic_tac_toe", "mcts:sims=50", "optimal", games=4, store=s, quiet=False),
        "--run",
        "ttt-mcts",
    )
    _plylab(
        *run_args("tic_tac_toe", "random", "optimal", formulation="hidden", games=2, store=s, quiet=False),
        "--run",
        "ttt-random",
    )
    _plylab(
        *run_args("nim", "mcts:sims=50", "random", games=2, store=s, quiet=False),
        "--run",
        "nim-mcts",
    )
    _plylab(
        "run",
        "--game",
        "tic_tac_toe",
        "--player",
        f"llm:model=openai-api/fake/m,base_url={chat_server},output=json",
        "--opponent",
        "optimal",
        "--games",
        "2",
        "--store",
        s,
        "--run",
        "ttt-llm",
    )
    _plylab(
        "clue",
        "run",
        "-p",
        "clue-matrix",
        "-p",
        "clue-oracle",
        "-p",
        "clue-random",
        "-p",
        "clue-matrix",
        "-p",
        "clue-random",
        "-p",
        "clue-matrix",
        "--games",
        "1",
        "--store",
        s,
        "-q",
    )
    return store


@pytest.fixture(scope="session")
def site(report_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`plylab report --store S --html OUT`, once."""
    out = tmp_path_factory.mktemp("site")
    _plylab("report", "--store", str(report_store), "--html", str(out))
    return out


@pytest.fixture
def page(browser) -> Iterator[object]:
    """A fresh checked page of the module's `browser` (each browser test file starts its own, after its
    stores: Playwright's loop would block the runs' asyncio)."""
    with checked_page(browser) as pg:
        yield pg
