"""A model call that produced no usable reply, classified so a player can record why."""

from __future__ import annotations

from typing import Literal

from .reply import Reply

ErrorKind = Literal["timeout", "rate_limit", "provider_error", "empty", "unreachable"]


class ModelError(Exception):
    """A failed call, after inspect's retries. `reply` holds what did come back (an empty reply's usage)."""

    def __init__(self, kind: ErrorKind, message: str, reply: Reply | None = None) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind: ErrorKind = kind
        self.message = message
        self.reply = reply
