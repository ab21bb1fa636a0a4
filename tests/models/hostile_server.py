"""A loopback OpenAI server that misbehaves on request: raw bodies, connection resets, floods.

Extends the scripted fake server (tests/support/fake_openai_server.py) with what a hostile or
broken server does that a well-formed JSON answer cannot express: a body written byte for byte
(numbers beyond 64 bits, escaped lone surrogates, a quoted key), a TCP reset mid-request, a body
padded to any size, a gzip bomb, and a chunked body that never ends.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import zlib
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from tests.support.fake_openai_server import Behaviour, FakeOpenAIServer, legal_move


@dataclass
class Hostile(Behaviour):
    """A Behaviour plus: `body` (a raw JSON text, sent as is except that `@MOVE@` becomes a legal
    move, JSON-escaped without quotes) and `reset` (abort the TCP connection with RST after `delay`)."""

    body: str | None = None
    reset: bool = False
    pad: int = 0  # bytes of JSON whitespace after the body's first '{' (valid JSON, just large)
    gzip: bool = False  # send the (padded) body gzip-compressed: `pad` zeros inflate from ~1/1000
    endless: bool = False  # a chunked 200 whose JSON body never ends (until the client hangs up)


def completion(
    text: str,
    usage: str = '{"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}',
    reasoning: str | None = None,
) -> str:
    """A chat completion as raw JSON; `text`, `usage` and `reasoning` are inserted as given (JSON)."""
    extra = f', "reasoning_content": {reasoning}' if reasoning is not None else ""
    return (
        '{"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, '
        f'"message": {{"role": "assistant", "content": {text}{extra}}}, "finish_reason": "stop"}}], '
        f'"usage": {usage}}}'
    )


class HostileServer(FakeOpenAIServer):
    #: response_format types refused the way llama-cpp-python's server refuses json_schema (HTTP 500)
    refuse_formats: frozenset[str] = frozenset()

    async def _answer(self, request: web.Request, body: dict[str, Any], b: Behaviour) -> web.StreamResponse:
        kind = (body.get("response_format") or {}).get("type")
        if kind in self.refuse_formats:
            message = (
                "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                f"'msg': \"Input should be 'text'\", 'input': '{kind}'}}"
            )
            return web.json_response(
                {"error": {"message": message, "type": "internal_server_error"}}, status=500
            )
        if not isinstance(b, Hostile) or not (b.body or b.reset or b.endless):
            return await super()._answer(request, body, b)
        delay = self.delay if b.delay is None else b.delay
        if delay:
            await asyncio.sleep(delay)
        if b.reset:
            transport = request.transport
            assert transport is not None
            sock = transport.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            transport.abort()  # with linger 0: RST, not FIN
            return web.Response()
        if b.endless:
            return await _endless(request)
        assert b.body is not None
        text = b.body.replace("@MOVE@", json.dumps(legal_move(body))[1:-1]).encode()
        head, tail = text[:1], text[1:]
        headers = {"Content-Type": "application/json"}
        if b.gzip:
            headers["Content-Encoding"] = "gzip"
            data = _gzip(head, b.pad, tail)
        else:
            data = head + b" " * b.pad + tail
        return web.Response(body=data, status=b.status, headers=headers)


def _gzip(head: bytes, pad: int, tail: bytes) -> bytes:
    """gzip of head + `pad` spaces + tail, made a megabyte at a time (never `pad` bytes at once)."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [z.compress(head)]
    block = b" " * 2**20
    for start in range(0, pad, len(block)):
        parts.append(z.compress(block[: min(len(block), pad - start)]))
    parts += [z.compress(tail), z.flush()]
    return b"".join(parts)


async def _endless(request: web.Request) -> web.StreamResponse:
    response = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
    response.enable_chunked_encoding()
    await response.prepare(request)
    await response.write(b'{"id": "x", "object": "chat.completion", "choices": [')
    block = b" " * 2**16
    try:
        for _ in range(2**16):  # 4 GiB at most: a test that hangs up never gets there
            await response.write(block)
    except (ConnectionError, RuntimeError):  # the client hung up: what a bounded reader does
        pass
    return response
