"""User-facing errors: the CLI turns these into one line and exit code 2, never a traceback."""

from __future__ import annotations


class UserError(Exception):
    """A mistake in what the user asked for (bad name, malformed spec, unreadable file)."""


class ParseError(ValueError):
    """A reply (from a model or a human) that does not name a legal action."""


def one_of(kind: str, value: str, accepted: "list[str] | tuple[str, ...]") -> UserError:
    """The standard 'unknown X' message, listing what is accepted."""
    return UserError(f"unknown {kind} '{value}'; accepted: {', '.join(sorted(accepted))}")
