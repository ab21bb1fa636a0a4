"""A model call that produced no usable reply, classified so a player can record why."""

from __future__ import annotations

from typing import Literal

from ..secrets import scrub
from .reply import Reply
from .sanitize import safe_text

# connection: the link broke mid-call (reset, closed); unreachable: no connection could be made;
# bad_reply: an answer that cannot be used at all (a cached one that cannot is asked again instead).
ErrorKind = Literal[
    "timeout", "rate_limit", "provider_error", "empty", "unreachable", "connection", "bad_reply"
]


class ModelError(Exception):
    """A failed call, after inspect's retries. `reply` holds what did come back (an empty reply's usage).

    The message often quotes the server; it is made storable (no lone surrogates) and scrubbed of
    the credentials in use before anything can print or keep it.
    """

    def __init__(self, kind: ErrorKind, message: str, reply: Reply | None = None) -> None:
        message = scrub(safe_text(message, "error", []))
        super().__init__(f"{kind}: {message}")
        self.kind: ErrorKind = kind
        self.message = message
        self.reply = reply

    def __reduce__(self) -> tuple[type[ModelError], tuple[ErrorKind, str, Reply | None]]:
        """Rebuilt from its parts in another process (a pool worker's or a Ray worker's failure)."""
        return type(self), (self.kind, self.message, self.reply)
