"""The embedded model, for real: Gemma 3 270M in-process, constrained to a schema, replayable."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from plylab.models import GenerateConfig, ResponseCache
from plylab.models.weights import GGUF_NAME, cache_dir, is_prepared

pytestmark = pytest.mark.model  # every test here runs the local model or assembles its weights

NIM_MOVES = ["pile 1, take 1", "pile 2, take 3", "pile 4, take 7"]
SCHEMA = {
    "type": "object",
    "properties": {"action": {"type": "string", "enum": NIM_MOVES}},
    "required": ["action"],
    "additionalProperties": False,
}
ASK = [{"role": "user", "content": "Piles: 1, 3, 5, 7. Choose a move. Reply in JSON with the field action."}]


def test_weights_are_assembled_once_into_the_cache():
    path = cache_dir() / GGUF_NAME
    assert is_prepared(path) and path.stat().st_size > 200_000_000


def test_schema_constrains_the_reply(local_model):
    reply = asyncio.run(local_model.generate(ASK, schema=SCHEMA, config=GenerateConfig(max_tokens=32)))
    assert json.loads(reply.text)["action"] in NIM_MOVES
    assert reply.usage.input_tokens > 10 and 0 < reply.usage.output_tokens <= 32
    assert reply.usage.cost == 0.0 and reply.stop_reason == "stop"


def test_free_text_still_works(local_model):
    reply = asyncio.run(local_model.generate(ASK, config=GenerateConfig(max_tokens=6)))
    assert reply.text.strip()
    assert reply.usage.output_tokens <= 6


def test_same_prompt_same_reply_at_temperature_zero(local_model):
    config = GenerateConfig(max_tokens=12, temperature=0.0, seed=7)
    a = asyncio.run(local_model.generate(ASK, config=config))
    asyncio.run(
        local_model.generate([{"role": "user", "content": "Something else entirely."}], config=config)
    )
    b = asyncio.run(local_model.generate(ASK, config=config))
    assert a.text == b.text  # the KV cache of the call in between leaves no trace


def test_system_messages_reach_gemma(local_model):
    """Gemma's template has no system turn; the text is folded into the user turn, not dropped."""
    config = GenerateConfig(max_tokens=8)
    plain = asyncio.run(local_model.generate(ASK, config=config))
    with_system = asyncio.run(
        local_model.generate([{"role": "system", "content": "Answer in French."}, *ASK], config=config)
    )
    assert with_system.usage.input_tokens > plain.usage.input_tokens


def test_concurrent_calls_are_serialised_and_unchanged(local_model):
    config = GenerateConfig(max_tokens=16)

    async def three():
        return await asyncio.gather(
            *(local_model.generate(ASK, schema=SCHEMA, config=config) for _ in range(2))
        )

    replies = asyncio.run(three())
    assert len({r.text for r in replies}) == 1


def test_local_replies_are_cached(local_model, tmp_path):
    cache = ResponseCache.open(tmp_path / "s.sqlite")
    config = GenerateConfig(max_tokens=16)
    first = asyncio.run(
        local_model.generate(ASK, schema=SCHEMA, config=config, cache=cache, cache_key="j/0/0")
    )
    again = asyncio.run(
        local_model.generate(ASK, schema=SCHEMA, config=config, cache=cache, cache_key="j/0/0")
    )
    assert not first.cached and again.cached and again.text == first.text
    assert local_model.identity.startswith("local/gemma-3-270m@")


def test_first_use_assembles_and_stamps_the_weights(tmp_path, monkeypatch):
    from plylab.models.weights import expected_sha256, gguf_path

    monkeypatch.setenv("PLYLAB_MODELS_DIR", str(tmp_path))
    assert not is_prepared(tmp_path / GGUF_NAME)
    (tmp_path / GGUF_NAME).write_bytes(b"half a file from a killed run")
    path = gguf_path()
    assert path == tmp_path / GGUF_NAME and path.stat().st_size > 200_000_000
    assert (tmp_path / f"{GGUF_NAME}.sha256").read_text().strip() == expected_sha256()
    assert is_prepared(path) and not list(tmp_path.glob("*.partial"))


LOAD_BESIDE_MAIN = """
import sys, threading, time
from plylab.models.local import LocalEngine
from plylab.models.weights import gguf_path
load = threading.Thread(target=lambda: LocalEngine(gguf_path()).close())
load.start()
n = 0
while load.is_alive() or n == 0:  # the main thread writes while a worker thread loads
    print(f"main {n}", flush=True)
    print(f"main {n}", file=sys.stderr, flush=True)
    n += 1
    time.sleep(0.002)
load.join()
print(f"wrote {n}", flush=True)
"""


def test_a_load_in_a_worker_thread_leaves_the_main_threads_output_alone():
    """What the main thread writes while the model loads reaches the terminal, and llama.cpp's own
    notes do not: llama-cpp-python used to point fds 1 and 2 (and sys.stdout, sys.stderr) at
    /dev/null for the load, from the loading thread, and a run's closing line written then was lost."""
    done = subprocess.run(
        [sys.executable, "-c", LOAD_BESIDE_MAIN], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    *lines, last = done.stdout.splitlines()
    n = int(last.removeprefix("wrote "))
    assert n > 1 and lines == [f"main {i}" for i in range(n)]
    assert done.stderr.splitlines() == [f"main {i}" for i in range(n)]  # and nothing of llama.cpp's
