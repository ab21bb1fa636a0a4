"""A CSV cell that a spreadsheet shows as text, never runs as a formula.

A run name, a player spec or a model's reply (`=HYPERLINK(...)`) may start with a character that
Excel, LibreOffice and Google Sheets read as the start of a formula. `cell` puts a leading quote
before such a text, as those tools expect (OWASP's advice on CSV injection); a number (`-0.5`,
`+3`), or one followed by a plain text (`-0.1 ±0.2`), stays as written. Every CSV plylab writes (reports, paper tables, `export`) goes through it.
"""

from __future__ import annotations

import re
from typing import TypeVar

FORMULA_START = frozenset("=+-@\t\r\n")
# A signed number alone, or before a space and words with no formula operator in them.
_NUMBER = re.compile(r"[+-](?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?%?(?:\s[^=+\-*/^&|!()<>;]*)?")
T = TypeVar("T")


def cell(value: T) -> T | str:
    """`value`, with a leading `'` where it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value[:1] in FORMULA_START and not _NUMBER.fullmatch(value):
        return "'" + value
    return value
