"""A CSV cell that a spreadsheet shows as text, never runs as a formula.

A run name, a player spec or a model's reply (`=HYPERLINK(...)`) may start with a character that
Excel, LibreOffice and Google Sheets read as the start of a formula. `cell` puts a leading quote
before such a text, as those tools expect (OWASP's advice on CSV injection); a number (`-0.5`,
`+3`) stays as written, and so does one followed by what the tables print beside a number: its
interval (`-0.200 [-0.400, +0.000]`), its n (`-0.400 (n=1)`), a mark (`†`, `≠`) or plain words
(`-0.1 ±0.2`), none of which can call a function or another program. Every CSV plylab writes
(reports, paper tables, `export`) goes through it.
"""

from __future__ import annotations

import re
from typing import TypeVar

FORMULA_START = frozenset("=+-@\t\r\n")
_NUM = r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?%?"
# What a table prints beside a number: its interval, its n (or a count) in brackets, a mark.
_BESIDE = rf"\s*(?:\[\s*[+-]?{_NUM}\s*,\s*[+-]?{_NUM}\s*\]|\((?:n=)?\d+\)|[†≠])"
# A signed number alone, or with what is printed beside it, then words with no formula operator in them.
_NUMBER = re.compile(rf"[+-]{_NUM}(?:{_BESIDE})*(?:\s[^=+\-*/^&|!()<>;]*)?")
T = TypeVar("T")


def cell(value: T) -> T | str:
    """`value`, with a leading `'` where it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value[:1] in FORMULA_START and not _NUMBER.fullmatch(value):
        return "'" + value
    return value
