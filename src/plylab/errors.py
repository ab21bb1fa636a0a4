"""User-facing errors, and the one vocabulary of failed moves.

The CLI turns a `UserError` into one line and exit code 2, never a traceback (`PLYLAB_DEBUG=1`
keeps the chain). A `ParseError` is a reply that names no legal action; its `kind` is the failure
kind a move or a Clue turn records.
"""

from __future__ import annotations

from typing import Literal, get_args

# Why a move (or a Clue turn) failed: the reply named no move, named an impossible one, or said
# nothing; or the call came too late, the provider failed, the link broke mid-call, or what came
# back cannot be used at all; or REAPER's planner gave no final answer within its iterations.
# Stored with every failed attempt.
FailureKind = Literal[
    "unparseable",
    "illegal",
    "empty",
    "timeout",
    "provider_error",
    "connection",
    "bad_reply",
    "no_final_answer",
]
ParseKind = Literal["unparseable", "illegal", "empty"]
FAILURE_KINDS: tuple[FailureKind, ...] = get_args(FailureKind)


def provider_failure(kind: str | None) -> bool:
    """Whether a move's recorded failure is the provider's, not the model's: no answer came after
    the door's retries (a time-out, a rate limit, an HTTP error, an unreachable server, a lost link)."""
    return kind in ("timeout", "provider_error", "connection")


class ProviderFailure(Exception):
    """A move the provider could not deliver, retries spent. The game is left unfinished (not saved,
    never a forfeit): the run says how many and why, and the same command plays it again."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message

    def __reduce__(self) -> tuple[type[ProviderFailure], tuple[str, str]]:
        return type(self), (self.kind, self.message)


class UserError(Exception):
    """A mistake in what the user asked for (bad name, malformed spec, unreadable file)."""


class ParseError(ValueError):
    """A reply (from a model or a human) that does not name a legal action, and why not."""

    def __init__(self, message: str, kind: ParseKind = "unparseable") -> None:
        super().__init__(message)
        self.kind: ParseKind = kind


def model_failure(error_kind: str) -> FailureKind:
    """The failure a move records for a model-door error kind (`plylab.models.ModelError.kind`):
    a kind that is also a failure kind keeps its name; rate limits, unreachable servers and other
    provider errors are one kind."""
    for kind in FAILURE_KINDS:
        if kind == error_kind:
            return kind
    return "provider_error"


def one_of(kind: str, value: str, accepted: list[str] | tuple[str, ...]) -> UserError:
    """The standard 'unknown X' message, listing what is accepted, with the nearest name first when
    one is near (`tictactoe` -> did you mean 'tic_tac_toe'?)."""
    near = nearest(value, accepted)
    hint = f" (did you mean '{near}'?)" if near is not None else ""
    return UserError(f"unknown {kind} '{value}'{hint}; accepted: {', '.join(sorted(accepted))}")


def nearest(value: str, accepted: list[str] | tuple[str, ...]) -> str | None:
    """The accepted name `value` most likely meant: the same letters without `_`, `-` or spaces, or
    else difflib's closest match (ratio 0.75 or more); None when nothing is that near."""
    import difflib

    def bare(name: str) -> str:
        return "".join(c for c in name.lower() if c not in "_- ")

    same = [a for a in accepted if bare(a) == bare(value)]
    if same:
        return same[0]
    close = difflib.get_close_matches(value.lower(), list(accepted), n=1, cutoff=0.75)
    return close[0] if close else None
