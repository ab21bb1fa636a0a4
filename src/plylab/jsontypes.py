"""The types of JSON as plylab stores and writes it: what a plan, a stored grade or an export holds.

Typed this far and no further: a JSON value read back is narrowed where it is used (`isinstance`),
and a structure plylab knows (a matchup row, a learning point) is a dataclass, never a JSON dict.
"""

from __future__ import annotations

from typing import TypeAlias

JSONScalar: TypeAlias = str | int | float | bool | None
JSONValue: TypeAlias = JSONScalar | list["JSONValue"] | dict[str, "JSONValue"]
JSONObject: TypeAlias = dict[str, JSONValue]
