"""What a language model sees and must answer: rules, history, matrix, and the reply schema.

Everything here is a function of a `ClueView` (and of the player's own matrix, itself built from
that view), so a prompt can hold nothing the seat has not observed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import ParseError
from ..jsontypes import JSONObject
from ..models.jsontext import BadJSON, parse_json
from .cards import CATEGORIES, Deck, Triple
from .events import Accusation, Event, Pass, Suggestion
from .matrix import Mark, PossibilityMatrix
from .view import ClueView

ENVELOPE = "envelope"
UNKNOWN = "unknown"


def seat_label(seat: int) -> str:
    return f"Player {seat + 1}"


def _who(view: ClueView, seat: int) -> str:
    return "you" if seat == view.me else seat_label(seat)


def rules_text(deck: Deck, num_players: int) -> str:
    return (
        f"You are playing Clue (text version, no board) with {num_players} players.\n"
        f"Cards: suspects {', '.join(deck.suspects)}; weapons {', '.join(deck.weapons)}; "
        f"rooms {', '.join(deck.rooms)}.\n"
        "One suspect, one weapon and one room are sealed in the envelope; every other card was dealt "
        "to the players. On your turn you do exactly one thing:\n"
        "- suggest any suspect, weapon and room: going clockwise from you, the first player holding any "
        "of the three shows exactly one of them to you alone; the others only learn who showed a card, "
        "or that nobody could;\n"
        "- accuse a suspect, weapon and room: if all three are in the envelope you win; if not, you are "
        "out (you keep showing cards when asked); you may accuse only once;\n"
        "- pass.\n"
        "Reply with JSON only: your action and its three cards, the cards you believe are in the envelope "
        '("unknown" where you have no belief), and every card whose holder you know for certain '
        '(holder is a player or "envelope").'
    )


def describe_event(view: ClueView, event: Event) -> str:
    deck = view.deck
    head = f"Turn {event.turn} ({_who(view, event.player)})"
    if isinstance(event, Suggestion):
        line = f"{head}: suggested {deck.describe(event.cards)}."
        stop = event.disprover if event.disprover is not None else event.player
        seat, passed = (event.player + 1) % view.num_players, []
        while seat != stop:
            passed.append(_who(view, seat))
            seat = (seat + 1) % view.num_players
        if passed and event.disprover is not None:
            line += f" {', '.join(passed)} had none of them."
        if event.disprover is None:
            line += " Nobody else could show any of them."
        elif event.shown is not None and event.player == view.me:
            line += f" {seat_label(event.disprover)} showed you {deck.name(event.shown)}."
        elif event.shown is not None:
            line += f" You showed {deck.name(event.shown)} to {seat_label(event.player)}."
        else:
            line += f" {_who(view, event.disprover)} showed {_who(view, event.player)} a card."
        return line
    if isinstance(event, Accusation):
        out = "you are out" if event.player == view.me else f"{seat_label(event.player)} is out"
        verdict = "right: the game is over" if event.correct else f"wrong: {out}"
        return f"{head}: accused {deck.describe(event.cards)} — {verdict}."
    if isinstance(event, Pass):
        return f"{head}: passed."
    raise TypeError(f"unknown event {event!r}")


def render_view(view: ClueView, history: bool = True) -> str:
    """The seat's observations in natural language (the baseline player's whole context); without
    `history`, only who it is, its cards, the turn and a pending suggestion (the matrix player's)."""
    deck, n = view.deck, view.num_players
    lines = [
        f"You are {seat_label(view.me)} of {n}; play goes clockwise "
        f"({' -> '.join(seat_label(s) for s in range(n))} -> {seat_label(0)}).",
        f"Your cards: {deck.describe(view.hand)}.",
        "Cards held: " + ", ".join(f"{seat_label(s)} {k}" for s, k in enumerate(view.hand_sizes)) + ".",
    ]
    if view.out:
        lines.append(
            "Out after a wrong accusation: " + ", ".join(seat_label(s) for s in sorted(view.out)) + "."
        )
    lines.append(f"Now: turn {view.turn} of at most {view.turn_limit} (round {view.round}).")
    if history:
        lines.append("What has happened:" if view.events else "Nothing has happened yet.")
        lines.extend(describe_event(view, e) for e in view.events)
    if view.pending is not None:
        p = view.pending
        assert p.disprover is not None  # a suggestion waits only on the player who must show a card
        lines.append(
            f"Now {_who(view, p.player)} suggested {deck.describe(p.cards)}; "
            f"{_who(view, p.disprover)} must show one of them to {_who(view, p.player)}."
        )
    return "\n".join(lines)


# A cell as the prompt writes it: `words`, the seed's YES / NO / MAYBE (000 l.90), the default;
# `symbols`, the Y / - / ? of runs stored before it (their prompts are cache keys: seeds.CLUE_CELLS).
CELLS = {
    "words": (
        {Mark.YES: "YES", Mark.NO: "NO", Mark.MAYBE: "MAYBE"},
        "YES = holds it, NO = does not, MAYBE = unknown",
        5,
    ),
    "symbols": ({Mark.YES: "Y", Mark.NO: "-", Mark.MAYBE: "?"}, "Y = holds it, - = does not, ? = unknown", 3),
}


def render_matrix(view: ClueView, matrix: PossibilityMatrix, cells: str = "words") -> str:
    """The matrix as a table (rows cards, columns holders) plus the envelope candidates."""
    deck = view.deck
    symbol, legend, cell = CELLS[cells]
    cols = [("you" if s == view.me else f"P{s + 1}") for s in range(view.num_players)] + ["Env"]
    width = max(len(name) for name in deck.names)
    lines = [
        f"Possibility matrix ({legend}):",
        " " * width + " | " + " ".join(f"{c:>{cell}}" for c in cols),
    ]
    for c, name in enumerate(deck.names):
        lines.append(f"{name:<{width}} | " + " ".join(f"{symbol[m]:>{cell}}" for m in matrix.cells[c]))
    for label, cands in zip(("suspects", "weapons", "rooms"), matrix.candidates()):
        lines.append(f"Envelope {label} still possible: {deck.describe(cands)}.")
    solution = matrix.solution()
    lines.append(
        f"READY TO ACCUSE: the envelope holds {deck.describe(solution)}."
        if solution
        else "Not ready to accuse yet: some category has more than one envelope candidate."
    )
    return "\n".join(lines)


def messages(
    view: ClueView, matrix: PossibilityMatrix | None, history: bool | None = None, cells: str = "words"
) -> list[dict[str, str]]:
    """The turn's chat. The matrix replaces the natural-language history (000 l.138 "shorter
    context", l.56): a matrix player sees the history too only with `history=True`. `cells`: how
    the matrix writes a cell (`CELLS`; the run's `clue_cells` rule)."""
    parts = [render_view(view, matrix is None if history is None else history)]
    if matrix is not None:
        parts.append(render_matrix(view, matrix, cells))
    parts.append("It is your turn. Choose suggest, accuse or pass, and state your deductions.")
    return [
        {"role": "system", "content": rules_text(view.deck, view.num_players)},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def reply_schema(deck: Deck, num_players: int) -> JSONObject:
    cats = (deck.suspects, deck.weapons, deck.rooms)
    holders = [seat_label(s) for s in range(num_players)] + [ENVELOPE]
    return {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["suggest", "accuse", "pass"]},
            **{cat: {"type": "string", "enum": list(names)} for cat, names in zip(CATEGORIES, cats)},
            "envelope": {
                "type": "object",
                "properties": {
                    cat: {"type": "string", "enum": [*names, UNKNOWN]} for cat, names in zip(CATEGORIES, cats)
                },
                "required": list(CATEGORIES),
                "additionalProperties": False,
            },
            "known": {
                "type": "array",
                "maxItems": deck.size,
                "items": {
                    "type": "object",
                    "properties": {
                        "card": {"type": "string", "enum": list(deck.names)},
                        "holder": {"type": "string", "enum": [*holders]},
                    },
                    "required": ["card", "holder"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["action", *CATEGORIES, "envelope", "known"],
        "additionalProperties": False,
    }


@dataclass
class Deductions:
    """What a player states it believes: the envelope (a guess is fine) and holdings it claims to
    know for certain (card -> holder, the envelope being holder n)."""

    envelope: dict[int, int | None] = field(default_factory=dict)  # category -> card or None
    known: dict[int, int] = field(default_factory=dict)


@dataclass
class ParsedReply:
    kind: str  # suggest | accuse | pass
    cards: Triple | None
    deductions: Deductions


def parse_reply(text: str, deck: Deck, num_players: int) -> ParsedReply:
    """Read a model's JSON reply; ParseError(kind=...) when it is empty, not JSON, or names no legal action."""
    if not text or not text.strip():
        raise ParseError("empty reply", kind="empty")
    raw = text.strip()
    if raw.startswith("```"):
        raw = raw.strip("`").removeprefix("json").strip()
    try:
        data = parse_json(raw)
    except BadJSON as exc:
        raise ParseError(f"not JSON: {exc}", kind="unparseable") from None
    if not isinstance(data, dict):
        raise ParseError("reply is not a JSON object", kind="unparseable")
    kind = str(data.get("action", "")).strip().lower()
    if kind not in ("suggest", "accuse", "pass"):
        raise ParseError(f"unknown action {data.get('action')!r}", kind="illegal")
    cards: Triple | None = None
    if kind != "pass":
        picked = []
        for cat, members in zip(CATEGORIES, deck.categories):
            card = _card(deck, data.get(cat))
            if card is None or card not in members:
                raise ParseError(f"{cat} {data.get(cat)!r} is not a {cat} card", kind="illegal")
            picked.append(card)
        cards = (picked[0], picked[1], picked[2])
    return ParsedReply(kind, cards, _deductions(data, deck, num_players))


def _card(deck: Deck, name: object) -> int | None:
    try:
        return deck.index(str(name))
    except KeyError:
        return None


def _deductions(data: JSONObject, deck: Deck, num_players: int) -> Deductions:
    """Lenient: unreadable belief entries are dropped, never fatal (the action already counted)."""
    out = Deductions()
    envelope = data.get("envelope")
    env = envelope if isinstance(envelope, dict) else {}
    for i, (cat, members) in enumerate(zip(CATEGORIES, deck.categories)):
        card = _card(deck, env.get(cat))
        out.envelope[i] = card if card in members else None
    holders = {seat_label(s).lower(): s for s in range(num_players)} | {ENVELOPE: num_players}
    known = data.get("known")
    for item in known if isinstance(known, list) else []:
        if not isinstance(item, dict):
            continue
        card, holder = _card(deck, item.get("card")), holders.get(str(item.get("holder", "")).strip().lower())
        if card is not None and holder is not None and card not in out.known:
            out.known[card] = holder
    return out
