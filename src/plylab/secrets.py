"""Credentials never leave the process: every string a server sends is scrubbed of them.

A server may quote our key back ("bad key Bearer sk-..."), echo the Authorization header in a
reply, or a user may write a key into `base_url` (`https://user:key@host/v1?key=...`). `scrub`
replaces, in any text: the values of `*_API_KEY` environment variables, keys registered from a
`base_url` in use, Bearer/Authorization values, URL user-info and credential-like query values.
It runs on reply text, reasoning and error messages at the model door, on a model's identity
(which keys the response cache), and on the run names built from player specs.
"""

from __future__ import annotations

import base64
import functools
import logging
import os
import re
import threading
import warnings
from typing import TextIO
from urllib.parse import parse_qsl, urlsplit

REDACTED = "[redacted]"
# A value found in a base_url's query or user name is a secret from this length on (shorter ones,
# `region=eu`, would scrub ordinary words). A configured key (`*_API_KEY`, a base_url's password)
# is scrubbed whatever its length: a short key is still the user's key.
MIN_SECRET = 6

_registered: set[str] = set()
_lock = threading.Lock()

# Header-style credentials: "Bearer <token>", "Authorization: <anything on the line>", "x-api-key: ..."
_BEARER = re.compile(r"(?i)\b(bearer)(\s+)(?=[^\s]*\d)[A-Za-z0-9._~+/=\-]{8,}")
_HEADER = re.compile(
    r"(?i)\b(authorization|x-api-key|x-goog-api-key|api-key)(\"?\s*[:=]\s*\"?)(?:(?:bearer|basic)\s+)?[^\s\"',}]+"
)
# URL user-info (`scheme://user:pass@`, `scheme://token@`) and credential-like query values.
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@?#]+@")
_QUERY = re.compile(
    r"(?i)([?&;](?:[a-z0-9_\-]*(?:key|token|secret|password|passwd|pwd|sig|signature|auth|credential)[a-z0-9_\-]*)=)"
    r"[^&#\s\"',]+"
)
# Provider key shapes quoted without context (OpenAI sk-..., Anthropic sk-ant-..., Google AIza...).
_KEY_SHAPES = re.compile(r"\b(?:sk-[A-Za-z0-9_\-]{16,}|AIza[0-9A-Za-z_\-]{30,})")


def register_url(url: str | None) -> None:
    """Remember the credentials written into a `base_url` (user-info, query values) as secrets."""
    if not url:
        return
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    found = [parts.username] + [v for _, v in parse_qsl(parts.query, keep_blank_values=False)]
    keys = [parts.password]
    if parts.username or parts.password:  # HTTP clients send user-info as Basic auth: its base64 too
        keys.append(base64.b64encode(f"{parts.username or ''}:{parts.password or ''}".encode()).decode())
    with _lock:
        _registered.update(v for v in found if v and len(v) >= MIN_SECRET)
        _registered.update(v for v in keys if v)


def credentials() -> list[str]:
    """The secret values in use now, longest first (so a key containing another is scrubbed whole)."""
    values = {v for k, v in os.environ.items() if k.upper().endswith("_API_KEY") and v.strip()}
    with _lock:
        values |= _registered
    return sorted(values, key=len, reverse=True)


def scrub(text: str) -> str:
    """`text` with every credential in use, and anything shaped like one, replaced by [redacted]."""
    if not text:
        return text
    for secret in credentials():
        if secret in text:
            text = text.replace(secret, REDACTED)
    low = text.lower()  # cheap substring checks first: a long clean reply skips every regex
    if "bearer" in low:
        text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    if any(h in low for h in ("authorization", "api-key")):
        text = _HEADER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    if "://" in low:
        text = _USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)
    if "=" in low:
        text = _QUERY.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
    if "sk-" in low or "aiza" in low:
        text = _KEY_SHAPES.sub(REDACTED, text)
    return text


_URL_QUERY = re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://[^\s?#,]*\?)([^\s#,]*)")


@functools.lru_cache(maxsize=4096)  # pure, and asked for every job key of a plan
def scrub_spec(text: str) -> str:
    """`text` (a player spec, a base_url) with URL user-info and every URL query value redacted.

    Stateless and deterministic (it does not depend on the environment or on what was registered),
    so it can shape what must stay stable between runs: job keys, run names, stored plans.
    """
    text = _USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)
    text = _URL_QUERY.sub(lambda m: m.group(1) + re.sub(r"=[^&;]*", f"={REDACTED}", m.group(2)), text)
    text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    return _KEY_SHAPES.sub(REDACTED, text)


_log_scrubber_installed = False


def install_log_scrubber() -> None:
    """Scrub every log record and warning made in this process from now on (providers, HTTP clients
    and inspect log server messages and request URLs); installed once, when a model is first built.

    pydantic's serializer warnings are dropped whole: a provider SDK that dumps a reply whose field
    has an unexpected type (a list for `content`, the key as a usage count) quotes the value, cut in
    the middle, so no scrubber could find the key in it. The reply itself is checked at the door.
    """
    global _log_scrubber_installed
    _install_warning_scrubber()  # each time: warnings.catch_warnings() (a test, a library) undoes it
    with _lock:
        if _log_scrubber_installed:
            return
        _log_scrubber_installed = True
    make = logging.getLogRecordFactory()

    def scrubbed(*args: object, **kwargs: object) -> logging.LogRecord:
        record = make(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record is the logger's problem, not ours
            return record
        clean = scrub(message)
        if clean != message:
            record.msg, record.args = clean, None
        return record

    logging.setLogRecordFactory(scrubbed)


_PYDANTIC_SERIALIZER = r"(?s)\s*Pydantic serializer warnings"


def _install_warning_scrubber() -> None:
    if not any(
        f[0] == "ignore" and getattr(f[1], "pattern", None) == _PYDANTIC_SERIALIZER for f in warnings.filters
    ):
        warnings.filterwarnings("ignore", message=_PYDANTIC_SERIALIZER)
    show = warnings.showwarning
    if getattr(show, "_plylab_scrubbed", False):
        return

    def scrubbed(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        show(scrub(str(message)), category, filename, lineno, file, line)

    scrubbed._plylab_scrubbed = True  # type: ignore[attr-defined]
    warnings.showwarning = scrubbed
