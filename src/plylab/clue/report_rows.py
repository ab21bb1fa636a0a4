"""The typed rows Clue's reports read: one per game, per turn and per (turn, seat) of knowledge.

`records.ClueRecords` makes them from the one store schema (a game's `extra`, a turn's annotated
move), so every reader sees one shape: a turn's cards are a list, its claims triples.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..jsontypes import JSONValue

Claim = tuple[int, int, str]  # (card, holder, verdict): holder == seats is the envelope


@dataclass(frozen=True, slots=True)
class ClueGameRow:
    """One game: its seats (canonical specs), deal, and how it ended."""

    id: int
    run_id: int
    idx: int
    seed: int
    seats: list[str]
    envelope: list[int]
    hands: list[list[int]]
    winner: int | None
    end_reason: str
    turns: int
    rounds: int
    solution_suggested_turn: int | None
    started: float
    finished: float
    condition: str


@dataclass(frozen=True, slots=True)
class ClueTurnRow:
    """One turn (a shown card on its suggestion's row) with the mover's model call, if any."""

    turn: int
    round: int
    seat: int
    action: str  # suggest | accuse | pass (a failed model turn is a pass)
    cards: list[int] | None
    disprover: int | None
    shown: int | None
    correct: bool | None
    envelope_belief: list[int | None] | None  # None: no belief stated
    claims: list[Claim]
    ready: bool | None  # the player's own matrix flag, when it sees one
    failure_kind: str | None
    error: str | None
    prompt: str | None
    reply: str | None
    reasoning: str | None
    input_tokens: int
    output_tokens: int
    reasoning_tokens: int
    cost: float | None
    latency: float | None
    cached: bool | None


@dataclass(frozen=True, slots=True)
class KnowledgeRow:
    """A seat's standing against the oracle after a turn."""

    turn: int
    seat: int
    oracle_known: int
    oracle_solved: bool
    matrix_ready: bool


def flag(value: object) -> bool | None:
    """A stored truth value (a bool, or the old integer column's 1, 0 or NULL)."""
    return None if value is None else bool(value)


def parsed(value: JSONValue) -> JSONValue:
    """A JSON column as its value: text is parsed, NULL stays None, a value already parsed stays."""
    return json.loads(value) if isinstance(value, str) else value


def ints(value: JSONValue) -> list[int]:
    """A JSON list of card indexes (or holders)."""
    value = parsed(value)
    assert isinstance(value, list), value
    out = [v for v in value if isinstance(v, int)]
    assert len(out) == len(value), value
    return out


def cards(value: JSONValue) -> list[int] | None:
    value = parsed(value)
    return None if value is None else ints(value)


def belief(value: JSONValue) -> list[int | None] | None:
    """An envelope belief: a card or None per category; None where none was stated."""
    value = parsed(value)
    if value is None:
        return None
    assert isinstance(value, list), value
    return [v if isinstance(v, int) else None for v in value]


def claims(value: JSONValue) -> list[Claim]:
    """The holdings a turn stated, judged: (card, holder, entailed | unsupported | incorrect)."""
    value = parsed(value)
    out: list[Claim] = []
    for c in value if isinstance(value, list) else []:
        assert isinstance(c, list) and len(c) == 3, c
        card, holder, verdict = c
        assert isinstance(card, int) and isinstance(holder, int) and isinstance(verdict, str), c
        out.append((card, holder, verdict))
    return out
