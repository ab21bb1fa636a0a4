"""Clue in the site: the study's metrics and figures, and a replay page for every Clue game.

The store keeps each turn's action, not the players' knowledge, so a replay re-deals the stored
hands, re-applies the turns, and after each one feeds every seat's view to a possibility matrix
and to the SAT oracle (the same pair the referee uses during play). Each step then holds, per
seat, both grids as strings of Y / N / ? over (card, holder), which keeps pages small.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..clue.cards import CATEGORIES, Deck, Triple
from ..clue.engine import ClueGame, ClueState, load
from ..clue.knowledge_charts import write_plots
from ..clue.matrix import Mark, PossibilityMatrix
from ..clue.metrics import ClueReport, report
from ..clue.oracle import ClueOracle
from ..clue.records import ClueRecords
from ..clue.report_rows import ClueGameRow, ClueTurnRow
from ..jsontypes import JSONObject, JSONValue

MARKS = {Mark.YES: "Y", Mark.NO: "N", Mark.MAYBE: "?"}


def _names(deck: Deck, cards: list[int] | None) -> str:
    return ", ".join(deck.name(c) for c in cards) if cards else ""


def _triple(cards: list[int] | None) -> Triple | None:
    if not cards:
        return None
    a, b, c = cards
    return a, b, c


def _apply(state: ClueState, game: ClueGame, turn: ClueTurnRow) -> None:
    cards = _triple(turn.cards)
    if turn.action == "suggest" and cards:
        state.apply_action(game.suggest_action(cards))
        if state.pending is not None:
            assert turn.shown is not None
            state.apply_action(turn.shown)  # a show action is the card's index
    elif turn.action == "accuse" and cards:
        state.apply_action(game.accuse_action(cards))
    else:
        state.apply_action(game.pass_action)


def _story(deck: Deck, turn: ClueTurnRow, seats: list[str]) -> str:
    """What happened in a turn, in one sentence (the replay is omniscient: shown cards are named)."""
    who = seats[turn.seat]
    cards = _names(deck, turn.cards)
    if turn.action == "suggest":
        if turn.disprover is None or turn.shown is None:
            return f"{who} suggested {cards}; nobody could disprove it."
        return f"{who} suggested {cards}; {seats[turn.disprover]} showed {deck.name(turn.shown)}."
    if turn.action == "accuse":
        return f"{who} accused {cards}: {'correct, and wins' if turn.correct else 'wrong, and is out'}."
    failed = f" (the model's turn failed: {turn.failure_kind})" if turn.failure_kind else ""
    return f"{who} passed{failed}."


def _kind(turn: ClueTurnRow) -> str:
    if turn.failure_kind:
        return "fail"
    if turn.action == "accuse":
        return "ok" if turn.correct else "bad"
    return "na" if turn.action == "pass" else "suggest"


def replay_payload(g: ClueGameRow, turns: list[ClueTurnRow], turn_limit: int, run_key: str) -> JSONObject:
    """Every turn of one Clue game with each seat's matrix and oracle knowledge after it (the JSON
    its replay page reads)."""
    specs, envelope, hands = g.seats, g.envelope, g.hands
    game = load(players=len(specs), turn_limit=turn_limit)
    deck = game.deck
    state: ClueState = game.new_initial_state()
    state.deal(envelope, hands)
    seats = [f"P{s + 1} ({spec})" for s, spec in enumerate(specs)]
    holders = range(len(specs) + 1)
    matrices = [PossibilityMatrix.for_view(state.view(s)) for s in range(len(specs))]
    oracles = [ClueOracle.for_view(state.view(s)) for s in range(len(specs))]

    def knowledge() -> list[JSONValue]:
        out: list[JSONValue] = []
        for seat, (m, o) in enumerate(zip(matrices, oracles)):
            m.update(state.view(seat))
            o.update(state.view(seat))
            status = {True: "Y", False: "N", None: "?"}
            out.append(
                {
                    "matrix": "".join(MARKS[m.cell(c, h)] for c in range(deck.size) for h in holders),
                    "oracle": "".join(status[o.status(c, h)] for c in range(deck.size) for h in holders),
                    "ready": m.ready,
                    "solved": o.solution() is not None,
                }
            )
        return out

    try:
        steps: list[JSONValue] = [
            {
                "turn": 0,
                "round": 0,
                "seat": None,
                "kind": "deal",
                "story": "The cards are dealt.",
                "knowledge": knowledge(),
            }
        ]
        for t in turns:
            _apply(state, game, t)
            belief = t.envelope_belief
            steps.append(
                {
                    "turn": t.turn,
                    "round": t.round,
                    "seat": t.seat,
                    "kind": _kind(t),
                    "story": _story(deck, t, seats),
                    "claims": [
                        [deck.name(c), "envelope" if h == len(specs) else seats[h], v] for c, h, v in t.claims
                    ],
                    "belief": None
                    if belief is None
                    else [deck.name(c) if c is not None else "?" for c in belief],
                    "prompt": t.prompt,
                    "reply": t.reply,
                    "reasoning": t.reasoning,
                    "tokens": {
                        "input": t.input_tokens,
                        "output": t.output_tokens,
                        "reasoning": t.reasoning_tokens,
                    },
                    "failure_kind": t.failure_kind,
                    "error": t.error,
                    "knowledge": knowledge(),
                }
            )
    finally:
        for o in oracles:
            o.close()
    holder_of = {c: s for s, hand in enumerate(hands) for c in hand} | {c: len(specs) for c in envelope}
    return {
        "id": g.id,
        "label": str(g.id),
        "run": run_key,
        "condition": g.condition,
        "seed": g.seed,
        "seats": list(seats),
        "holders": [*(f"P{s + 1}" for s in range(len(specs))), "Env"],
        "cards": [deck.name(c) for c in range(deck.size)],
        "categories": [[CATEGORIES[k], list(cat)] for k, cat in enumerate(deck.categories)],
        "truth": [holder_of[c] for c in range(deck.size)],
        "winner": None if g.winner is None else seats[g.winner],
        "end_reason": g.end_reason,
        "envelope": _names(deck, envelope),
        "steps": steps,
    }


@dataclass(frozen=True)
class ClueReplay:
    """One Clue game as the site lists it, with its replay page's JSON."""

    id: int
    label: str
    condition: str
    run: str
    turns: int
    winner: str | None
    end_reason: str
    envelope: str
    payload: JSONObject


def replays(store_path: Path) -> Iterator[ClueReplay]:
    """Each Clue game's replay, one at a time (memory stays flat for big stores)."""
    store = ClueRecords(store_path)
    try:
        for g in store.games():
            run = store.run_of(g)
            payload = replay_payload(g, store.turns(g.id), run.turn_limit, run.key)
            steps, winner = payload["steps"], payload["winner"]
            yield ClueReplay(
                g.id, str(payload["label"]), g.condition, run.key,
                len(steps) - 1 if isinstance(steps, list) else 0,  # the first step is the deal
                winner if isinstance(winner, str) else None, g.end_reason, str(payload["envelope"]), payload,
            )  # fmt: skip
    finally:
        store.close()


def clue_report(store_path: Path) -> ClueReport:
    """The study's report, as `plylab clue report` prints it."""
    store = ClueRecords(store_path)
    try:
        return report(store)
    finally:
        store.close()


def metrics(store_path: Path, plot_dir: Path) -> tuple[ClueReport, list[Path]]:
    """The study's report and its two figures."""
    data = clue_report(store_path)
    return data, write_plots(data, plot_dir)
