"""A loopback server that speaks the OpenAI chat-completions API, for wire tests and benchmarks.

Replies are scripted: queue `Behaviour`s (a status, a delay, a reply text, reasoning, usage, a
dropped connection) and each request takes the next one; with the queue empty it answers with a
legal move read from the request (the first enum value of a JSON-schema response format, or the
first listed legal move), after `delay` seconds. Every request body and header set is kept.

Run it alone for benchmarks: `python bench/fake_openai_server.py --delay 0.2` prints `PORT <n>`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Self

from aiohttp import web


@dataclass
class Behaviour:
    """How to answer one request."""

    status: int = 200
    text: str | None = None  # None: a legal move read from the request
    reasoning: str | None = None  # sent as message.reasoning_content
    delay: float | None = None  # None: the server's default delay
    drop: bool = False  # close the connection without answering
    usage: dict[str, int] = field(default_factory=lambda: {"prompt_tokens": 50, "completion_tokens": 7})
    reasoning_tokens: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    finish_reason: str = "stop"  # "length": the reply was cut off at max_tokens


def legal_move(body: dict[str, Any]) -> str:
    """A well-formed answer to a plylab move prompt: JSON if a schema was asked for, else the text
    form the prompt asks for (`Action: <move>`), or `ANSWER: <move>`."""
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or {}
    enum = ((schema.get("properties") or {}).get("action") or {}).get("enum")
    if enum:
        return json.dumps({"reasoning": "first legal move", "action": enum[0]})
    prompt = next(
        (m.get("content") for m in reversed(body.get("messages", [])) if m.get("role") == "user"), ""
    )
    if isinstance(prompt, list):  # parts (an image and its text): the text parts are the prompt
        prompt = "\n".join(
            p.get("text", "") for p in prompt if isinstance(p, dict) and p.get("type") == "text"
        )
    prompt = prompt if isinstance(prompt, str) else ""
    return f"{answer_form(prompt)}{first_legal(prompt)}"


def first_legal(prompt: str) -> str:
    """The first legal move a plylab move prompt lists ('1' where it lists none)."""
    found = re.search(r"Legal moves:\n- (.+)", prompt)
    return found.group(1) if found else "1"


def answer_form(prompt: str) -> str:
    """The label before the move in a text answer to `prompt` (`prompt=line` asks for `Action:`; the
    older prompts read an `ANSWER:` line)."""
    return "Action: " if "Action: <your move>" in prompt else "ANSWER: "


class FakeOpenAIServer:
    """Serves /v1/chat/completions and /v1/models on 127.0.0.1 from a background thread."""

    def __init__(self, *, delay: float = 0.0, api_key: str | None = None, port: int = 0) -> None:
        self.delay = delay
        self.api_key = api_key
        self.port = port
        self.script: list[Behaviour] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.times: list[float] = []  # time.monotonic() of each chat request's arrival
        self.in_flight = 0
        self.max_in_flight = 0  # the most chat requests open at once (concurrency caps)
        # Event-based concurrency checks: with `gather=n`, requests are held until n are open at once
        # (or `gather_timeout` seconds pass); after that nothing is held. A cap of n is then reached
        # exactly on any load, and a gate that lets fewer through shows as a lower max_in_flight.
        self.gather = 0
        self.gather_timeout = 10.0
        self._open: asyncio.Condition | None = None
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def queue(self, *behaviours: Behaviour) -> None:
        with self._lock:
            self.script.extend(behaviours)

    def reset(self) -> None:
        with self._lock:
            self.script.clear()
            self.requests.clear()
            self.headers.clear()
            self.times.clear()
            self.max_in_flight = 0

    # -- http -------------------------------------------------------------------------------
    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._chat)
        return app

    def _authorised(self, request: web.Request) -> bool:
        return self.api_key is None or request.headers.get("Authorization") == f"Bearer {self.api_key}"

    async def _models(self, request: web.Request) -> web.Response:
        if not self._authorised(request):
            return web.json_response({"error": {"message": "bad key", "type": "auth"}}, status=401)
        return web.json_response({"object": "list", "data": [{"id": "fake", "object": "model"}]})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
            self.times.append(time.monotonic())
            self.headers.append(dict(request.headers))
            b = self.script.pop(0) if self.script else Behaviour()
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.gather:
                await self._gathered()
            return await self._answer(request, body, b)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _gathered(self) -> None:
        """Wait until `gather` requests have been open at once (or the timeout passes)."""
        if self._open is None:
            self._open = asyncio.Condition()
        async with self._open:
            self._open.notify_all()
            try:
                await asyncio.wait_for(
                    self._open.wait_for(lambda: self.max_in_flight >= self.gather),
                    timeout=self.gather_timeout,
                )
            except TimeoutError:
                pass
            self._open.notify_all()

    async def _answer(self, request: web.Request, body: dict[str, Any], b: Behaviour) -> web.StreamResponse:
        if not self._authorised(request):
            return web.json_response({"error": {"message": "bad key", "type": "auth"}}, status=401)
        delay = self.delay if b.delay is None else b.delay
        if delay:
            await asyncio.sleep(delay)
        if b.drop:
            assert request.transport is not None
            request.transport.close()
            return web.Response()
        if b.status != 200:
            return web.json_response(
                {"error": {"message": f"scripted {b.status}", "type": "server_error", "code": b.status}},
                status=b.status,
                headers=b.headers,
            )
        text = legal_move(body) if b.text is None else b.text
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if b.reasoning is not None:
            message["reasoning_content"] = b.reasoning
        usage: dict[str, Any] = dict(b.usage)
        usage["total_tokens"] = usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)
        if b.reasoning_tokens:
            usage["completion_tokens_details"] = {"reasoning_tokens": b.reasoning_tokens}
        return web.json_response(
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "fake"),
                "choices": [{"index": 0, "message": message, "finish_reason": b.finish_reason}],
                "usage": usage,
            }
        )

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> FakeOpenAIServer:
        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            runner = web.AppRunner(self.app(), access_log=None)
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, "127.0.0.1", self.port, backlog=1024)
            loop.run_until_complete(site.start())
            self.port = runner.addresses[0][1]
            self._runner = runner
            ready.set()
            loop.run_forever()
            loop.run_until_complete(runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=serve, name="fake-openai", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("fake OpenAI server did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = FakeOpenAIServer(delay=args.delay, port=args.port).start()
    print(f"PORT {server.port}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
