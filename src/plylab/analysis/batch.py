"""Which replies were asked through a provider's batch API, read from the stored player specs.

The `llm` key `batch=on` sends every call through inspect's batch mode (about half the price at
OpenAI, Anthropic and Google, replies within hours); the spec is stored with each run, answer and
game, so the reports read it there rather than from a column of their own. A provider without a batch
API (the embedded model, an OpenAI-compatible server) answers each call alone: the note says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..errors import UserError
from ..render.table import Table

__all__ = ["BATCH_NOTE", "batch_note", "batched", "batched_roles", "noted"]

BATCH_NOTE = (
    "replies from a batch: {specs} asked through the provider's batch API (batch=on: about half the price at "
    "OpenAI, Anthropic and Google, replies within hours; a provider without one answers each call alone)"
)


def batched(spec: str) -> bool:
    """Did the `llm` player `spec` ask for its replies in a batch (`batch=on`)?"""
    from ..specs import parse_spec  # pydantic: not on the path of `plylab --help`, which imports the tables

    try:
        parsed = parse_spec(spec)
    except UserError:
        return False
    return parsed.name == "llm" and parsed.options.get("batch", "").strip().lower() == "on"


def batched_roles(row: dict[str, object], roles: tuple[str, ...] = ("player", "opponent")) -> list[str]:
    """The roles of a table's JSON row (`player`, `opponent`) whose specs asked in a batch."""
    return [r for r in roles if isinstance(row.get(r), str) and batched(str(row[r]))]


def batch_note(specs: Iterable[str]) -> str | None:
    """The note naming every spec of `specs` that asked in a batch; None where none did."""
    named = list(dict.fromkeys(s for s in specs if batched(s)))
    return BATCH_NOTE.format(specs=", ".join(named)) if named else None


def noted(table: Table, specs: Iterable[str], rows_key: str | None = None) -> Table:
    """`table` saying which of `specs` had their replies from a batch: a note under it, and, where its
    JSON holds rows under `rows_key`, each row's `batch` (the roles that asked in one)."""
    note = batch_note(specs)
    data = table.data
    if rows_key is not None and isinstance(data, dict) and isinstance(data.get(rows_key), list):
        rows = [{**r, "batch": batched_roles(r)} if isinstance(r, dict) else r for r in data[rows_key]]
        data = {**data, rows_key: rows}
    if note is None and data is table.data:
        return table
    return replace(table, notes=[*table.notes, *([note] if note else [])], data=data)
