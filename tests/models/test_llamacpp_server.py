"""A real OpenAI-compatible server, not a fake: llama-cpp-python's own, serving the local GGUF.

It refuses `response_format` json_schema with HTTP 500 and accepts json_object with a schema;
the model door must recognise the first refusal, fall back, and record the form it used. One tiny
game per output mode of the LLM player goes through `plylab run` end to end (issue 15, point 9).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import httpx
import pytest

from plylab.players.llm import LLMOptions
from tests.support.ports import free_port

pytestmark = [pytest.mark.model, pytest.mark.slow]

pytest.importorskip("llama_cpp.server.app", reason="needs llama-cpp-python[server] (the dev extra)")

MODES = get_args(LLMOptions.model_fields["output"].annotation)  # every output mode the player has


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from plylab.models.weights import gguf_path

    port = free_port()
    log = (tmp_path_factory.mktemp("llama") / "server.log").open("w")
    args = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf_path()),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--chat_format",
        "gemma",
        "--n_threads",
        "2",
    ]
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(f"{url}/models", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not start (exit {proc.poll()}); see {log.name}")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.mark.parametrize("mode", MODES)
def test_a_game_through_llama_cpp_server(
    cli, tmp_path: Path, llama_server: str, mode: str, monkeypatch
) -> None:
    monkeypatch.setenv("LLAMACPP_API_KEY", "sk-no-key-required")  # the server takes any key
    store = tmp_path / "s.sqlite"
    spec = (
        f"llm:model=openai-api/llamacpp/gemma,base_url={llama_server},output={mode},temperature=0,"
        "max_tokens=32,reasoning=0,timeout=300"
    )
    result = cli(
        "run",
        "--game",
        "nim",
        "--player",
        spec,
        "--opponent",
        "random",
        "--games",
        "1",
        "--store",
        str(store),
        "--quiet",
    )
    assert result.code == 0, result.err
    with sqlite3.connect(store) as conn:
        conn.row_factory = sqlite3.Row
        (game,) = conn.execute("SELECT * FROM games").fetchall()
        moves = conn.execute("SELECT * FROM moves WHERE player LIKE 'llm:%' ORDER BY ply").fetchall()
    assert moves, "the model never moved"
    for m in moves:
        # the server answered every call (no transport failure), with its own token counts
        assert m["failure_kind"] not in ("provider_error", "timeout", "connection", "bad_reply"), m[
            "attempts"
        ]
        assert m["input_tokens"] > 0 and m["output_tokens"] > 0
        fell_back = "json_object with the schema (the server refused json_schema)" in (m["attempts"] or "")
        assert fell_back == (mode != "text")  # the run records the form the schema went in
    if mode == "enum":  # constrained to the legal moves by the server's grammar: never a failed move
        assert game["failure_kind"] is None and all(m["action"] is not None for m in moves)
