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
from typing import Any
from urllib.parse import parse_qsl, urlsplit

REDACTED = "[redacted]"
MIN_SECRET = 6  # shorter values would scrub ordinary words; no real key is this short

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
    found = [parts.username, parts.password] + [v for _, v in parse_qsl(parts.query, keep_blank_values=False)]
    if parts.username or parts.password:  # HTTP clients send user-info as Basic auth: its base64 too
        found.append(base64.b64encode(f"{parts.username or ''}:{parts.password or ''}".encode()).decode())
    with _lock:
        _registered.update(v for v in found if v and len(v) >= MIN_SECRET)


def credentials() -> list[str]:
    """The secret values in use now, longest first (so a key containing another is scrubbed whole)."""
    values = {v for k, v in os.environ.items() if k.upper().endswith("_API_KEY") and len(v) >= MIN_SECRET}
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
    """Scrub every log record made in this process from now on (providers, HTTP clients and
    inspect log server messages and request URLs); installed once, when a model is first built."""
    global _log_scrubber_installed
    with _lock:
        if _log_scrubber_installed:
            return
        _log_scrubber_installed = True
    make = logging.getLogRecordFactory()

    def scrubbed(*args: Any, **kwargs: Any) -> logging.LogRecord:
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
