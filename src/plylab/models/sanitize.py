"""What a server sends is untrusted: text and numbers are made safe to store before anything keeps them.

A reply may hold a lone UTF-16 surrogate (valid JSON, not encodable as UTF-8: SQLite and JSON
writers refuse it) or usage counts beyond 64 bits, negative, or not numbers at all (SQLite's
INTEGER is 64-bit; SUM over a run must not overflow). Each unsafe value is replaced -- a lone
surrogate by U+FFFD, an impossible count by 0, an impossible cost by None -- and the replacement
is named in a flag that the reply and the attempt record keep, so nothing is changed silently.
Text beyond MAX_TEXT characters is cut there, flagged the same way.
"""

from __future__ import annotations

import math
import re

# The most tokens one call may report. Real calls are below 10^7; this leaves SQL sums over a
# billion calls far inside 64 bits.
MAX_TOKENS = 10**9
MAX_COST = 10.0**6  # dollars for one call
# The most characters kept of one reply's text (and of its reasoning). Real answers, reasoning
# summaries included, stay far below it; a runaway or hostile server's megabytes stop here, and
# the flag records how long the text was.
MAX_TEXT = 1_000_000
_SURROGATE = re.compile("[\ud800-\udfff]")


def safe_text(value: object, field: str, flags: list[str]) -> str:
    """`value` as a string encodable in UTF-8: lone surrogates become U+FFFD (flagged)."""
    if isinstance(value, str):
        text = value
    else:
        text = "" if value is None else _shown(value) if isinstance(value, int) else repr(value)[:10_000]
        flags.append(
            f"{field}: not a string ({type(value).__name__}), kept as its repr (at most 10,000 characters)"
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text, n = _SURROGATE.subn("\ufffd", text)
        flags.append(f"{field}: {n} lone surrogate(s) replaced with U+FFFD")
    if len(text) > MAX_TEXT:
        flags.append(f"{field}: truncated to {MAX_TEXT:,} of {len(text):,} characters")
        text = text[:MAX_TEXT]
    return text


def safe_count(value: object, field: str, flags: list[str]) -> int:
    """A token count in 0..MAX_TOKENS; anything else counts 0 and is flagged with what was sent."""
    if isinstance(value, bool):
        value = None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and 0 <= value <= MAX_TOKENS:
        return value
    if value is None or value == 0:
        return 0
    flags.append(f"usage.{field} out of range ({_shown(value)}): counted as 0")
    return 0


def safe_cost(value: object, flags: list[str]) -> float | None:
    """A cost in dollars in 0..MAX_COST, else None (unknown), flagged."""
    if value is None:
        return None
    if not isinstance(value, bool) and isinstance(value, (int, float)):
        try:
            cost = float(value)
        except OverflowError:
            cost = math.inf
        if math.isfinite(cost) and 0.0 <= cost <= MAX_COST:
            return cost
    flags.append(f"usage.cost out of range ({_shown(value)}): recorded as unknown")
    return None


def _shown(value: object) -> str:
    if isinstance(value, int) and value.bit_length() > 200:  # str() refuses beyond 4300 digits
        return f"an integer of {value.bit_length()} bits"
    text = value if isinstance(value, str) else repr(value)
    text = _SURROGATE.sub("\ufffd", text)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} chars)"
