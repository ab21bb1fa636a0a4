"""Stored or user-given text made safe to print on a terminal, on one line.

A run name, a spec or a reply comes from a user, a plan file or a server. Printed raw, its escape
sequences retitle or recolour the user's terminal and its newlines split one error into many lines.
`printable` shows every control character as an escape (`\\n`, `\\x1b`), so what is printed is what
was stored, and nothing in it acts on the terminal. Every place that prints a stored string (the
run summary, report tables, error lines) goes through it.
"""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, Unicode line/paragraph separators, bidirectional marks and overrides, and
# lone surrogates (bytes that were not UTF-8: printed raw, they end the process with UnicodeEncodeError).
_CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200e\u200f\u061c\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    if c in _NAMED:
        return _NAMED[c]
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def printable(text: object) -> str:
    """`text` as a string with every control character escaped: one line, inert on a terminal."""
    return _CONTROL.sub(_escape, str(text))
