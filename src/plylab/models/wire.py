"""What a model server may send back: at most MAX_REPLY_BYTES, on the wire and once inflated.

A hostile or broken server can answer with a valid 33 MB reply of 200,000 choices, a chunked body
that never ends, or 3 MB of gzip that inflates to 3 GB. The provider SDKs read the whole body into
memory (and inflate it) before anything can look at it. `cap_replies` puts a transport under a
provider's httpx client that counts every byte as it streams in, inflates gzip/deflate itself in
bounded steps, and aborts the read past the cap: the call fails at once, in bounded memory, as a
`bad_reply` (see `model.classify`). Real replies, a million characters of text and as much
reasoning included, stay far below the cap.
"""

from __future__ import annotations

import contextvars
import functools
import importlib
import re
import zlib
from collections.abc import AsyncIterator
from typing import Any

MAX_REPLY_BYTES = 16 * 2**20  # 16 MiB, on the wire and inflated
# JSON values (each array, object and element after a comma) one JSON reply may hold. A provider
# SDK builds a Python object (or a pydantic model) for each: 150,000 choices in 14 MB took 1.07 GB,
# 5 M empty lists in an extra field 1.58 GB. A real reply holds a few dozen; text is one value at any
# length. So a reply's memory stays a small multiple of its size. (A streamed reply is not counted.)
MAX_REPLY_VALUES = 50_000
_STEP = 64 * 2**10  # bytes inflated at a time
# Content encodings inflated here (zlib wbits: 32 + 15 reads a gzip or a zlib header).
_ENCODINGS = {"": None, "identity": None, "gzip": 47, "x-gzip": 47, "deflate": 47}
# The httpx-style libraries provider SDKs use (openai's SDK moved to httpx2): the same API.
HTTP_LIBRARIES = ("httpx2", "httpx")


# The HTTP statuses the calls of one model call got, attempt by attempt (set by the door, read when
# its deadline ends the call: a server that answered 500 until then failed; it was not slow).
STATUSES: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("plylab_statuses", default=None)


class UnsafeReply(Exception):
    """A reply refused as it streamed in (too large, or in an encoding we do not inflate)."""


_STRUCTURE = re.compile(rb'\\.|["\[{,]', re.DOTALL)  # an escape, a quote, an opening bracket, a comma


class _ValueCounter:
    """Counts the JSON values of a body as it streams in (outside strings), across chunk bounds."""

    def __init__(self, most: int) -> None:
        self.most, self.count, self.quoted, self.carry = most, 0, False, b""

    def feed(self, chunk: bytes) -> None:
        data, self.carry = self.carry + chunk, b""
        end = 0
        for m in _STRUCTURE.finditer(data):
            token, end = m.group(), m.end()
            if token == b'"':
                self.quoted = not self.quoted
            elif not self.quoted and token in (b"[", b"{", b","):
                self.count += 1
        if data.endswith(b"\\") and end < len(data):  # an escape cut by the chunk's end
            self.carry = b"\\"
        if self.count > self.most:
            raise UnsafeReply(f"the reply holds more than {self.most:,} JSON values")


class _CappedStreamBase:
    """Hands on a raw body, inflated in bounded steps, until it passes `cap` bytes either way (or,
    for a JSON body, `values` JSON values)."""

    def __init__(self, raw: Any, wbits: int | None, cap: int, values: int | None = None) -> None:
        self._raw, self._wbits, self._cap = raw, wbits, cap
        self._values = None if values is None else _ValueCounter(values)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        inflate = zlib.decompressobj(self._wbits) if self._wbits is not None else None
        wire = body = 0
        async for chunk in self._raw:
            wire += len(chunk)
            if wire > self._cap:
                raise UnsafeReply(f"the reply is larger than {self._cap:,} bytes on the wire")
            if inflate is None:
                if self._values is not None:
                    self._values.feed(chunk)
                yield chunk
                continue
            data = chunk
            while data:
                try:
                    piece = inflate.decompress(data, _STEP)
                except zlib.error as exc:
                    raise UnsafeReply(f"the reply's compressed body is corrupt ({exc})") from None
                body += len(piece)
                if body > self._cap:
                    raise UnsafeReply(f"the reply inflates to more than {self._cap:,} bytes")
                if piece:
                    if self._values is not None:
                        self._values.feed(piece)
                    yield piece
                data = inflate.unconsumed_tail

    async def aclose(self) -> None:
        await self._raw.aclose()


@functools.cache
def _stream_class(library: str) -> type[_CappedStreamBase]:
    """The capped stream as a subclass of `library`'s AsyncByteStream (its Response checks for it)."""
    base = importlib.import_module(library).AsyncByteStream
    return type("CappedStream", (_CappedStreamBase, base), {})


class CappedTransport:
    """Wraps an httpx(2) async transport: hands on at most `cap` bytes of any body, inflated."""

    def __init__(self, inner: Any, cap: int = MAX_REPLY_BYTES) -> None:
        self.inner, self.cap = inner, cap

    async def handle_async_request(self, request: Any) -> Any:
        request.headers["Accept-Encoding"] = "gzip, deflate"  # what we inflate in bounded steps
        response = await self.inner.handle_async_request(request)
        statuses = STATUSES.get()
        if statuses is not None:
            statuses.append(int(response.status_code))
        library = type(response).__module__.split(".")[0]
        encoding = response.headers.get("content-encoding", "").strip().lower()
        stated = response.headers.get("content-length", "")
        why = None
        if encoding not in _ENCODINGS:
            why = f"the reply's content-encoding '{encoding[:40]}' is not one we read (gzip, deflate)"
        elif stated.isdigit() and int(stated) > self.cap:
            why = f"the reply states {int(stated):,} bytes, more than {self.cap:,}"
        if why is not None:
            await response.aclose()
            raise UnsafeReply(why)
        json_body = "json" in response.headers.get("content-type", "").lower()
        values = MAX_REPLY_VALUES if json_body else None  # an event stream's many small bodies: not counted
        headers = [
            (k, v)
            for k, v in response.headers.raw
            if k.lower() not in (b"content-encoding", b"content-length")
        ]
        return type(response)(
            response.status_code,
            headers=headers,
            stream=_stream_class(library)(response.stream, _ENCODINGS[encoding], self.cap, values),
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> CappedTransport:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.inner.__aexit__(*exc)


def cap_replies(api: Any, cap: int = MAX_REPLY_BYTES) -> bool:
    """Put a CappedTransport under the httpx(2) client of an inspect provider; False when it has
    none (the local model; a provider SDK on another HTTP library)."""
    http: Any = getattr(getattr(api, "client", None), "_client", None)  # openai's and anthropic's SDKs
    libraries = {c.__module__.split(".")[0] for c in type(http).__mro__}
    if not libraries & set(HTTP_LIBRARIES) or not hasattr(http, "_transport"):
        return False
    if not isinstance(http._transport, CappedTransport):
        http._transport = CappedTransport(http._transport, cap)
    http._mounts = {
        pattern: t if t is None or isinstance(t, CappedTransport) else CappedTransport(t, cap)
        for pattern, t in http._mounts.items()
    }
    return True
