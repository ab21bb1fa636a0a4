"""JSON read from a model's reply: bounded, so a hostile answer is unparseable, never a crash.

A reply is untrusted text. `json.loads` on `[[[...]]]` nested 100,000 deep raises RecursionError
(and a shallower one can exhaust the stack of whatever walks the result); a cached reply that once
crashed would crash every re-run. `parse_json` refuses text nested deeper than MAX_DEPTH, or longer
than sanitize.MAX_TEXT, and turns every failure into one `BadJSON` (a ValueError) with a one-line
reason, which each reader (the LLM player, the Clue player, REAPER) records as an unparseable reply.
"""

from __future__ import annotations

import json
import re

from ..jsontypes import JSONValue
from .sanitize import MAX_TEXT

# No move, Clue action or REAPER message nests more than a few levels; 64 leaves room and keeps
# every walker of the result (pydantic, json.dumps, our own) far from Python's recursion limit.
MAX_DEPTH = 64
_TOKEN = re.compile(r'\\.|["\[\]{}]', re.DOTALL)  # an escape, a quote or a bracket


class BadJSON(ValueError):
    """Text that is not usable JSON; the message says why in one line."""


def json_depth(text: str) -> int:
    """How deep `text`'s arrays and objects nest (brackets inside strings do not count)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:  # cheap: too few brackets to be too deep
        return 0
    depth = deepest = 0
    quoted = False
    for m in _TOKEN.finditer(text):  # linear: one pass, no backtracking
        token = m.group()
        if token == '"':
            quoted = not quoted
        elif quoted or token[0] == "\\":
            continue
        elif token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def parse_json(text: str, *, strict: bool = True) -> JSONValue:
    """`text` as JSON; BadJSON when it is not JSON, nests deeper than MAX_DEPTH or is too long.

    `strict=False` accepts raw control characters (a raw newline) inside strings, as models write them.
    """
    if len(text) > MAX_TEXT:
        raise BadJSON(f"longer than {MAX_TEXT:,} characters")
    if json_depth(text) > MAX_DEPTH:
        raise BadJSON(f"nested deeper than {MAX_DEPTH} levels")
    try:
        value: JSONValue = json.loads(text, strict=strict)  # what JSON decodes to, by its definition
        return value
    except json.JSONDecodeError as exc:
        raise BadJSON(f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (RecursionError, MemoryError, ValueError) as exc:  # belt and braces: never a crash
        raise BadJSON(type(exc).__name__) from None
