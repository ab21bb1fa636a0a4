"""The replay page's payload, typed: what reports/data.py builds and the page's charts read.

It is inlined into the page as JSON (the page's script reads it), so it stays a JSON object and its
parts are TypedDicts: the keys are the page's, the types are checked. A value copied from a stored
grade as it was stored is a `JSONValue`.
"""

from __future__ import annotations

from typing import TypedDict

from ..jsontypes import JSONObject, JSONValue
from ..oracles.graded import Unit


class LegalMove(TypedDict):
    """One legal move as the mover saw it, with what the ground truth says of it."""

    action: int
    label: str
    value: str | None  # win / draw / loss for the mover (an exact oracle of game values)
    score: float | None  # an exact score (Connect Four's distance to the end)
    graded: float | None  # its value on the graded scale (the decision's unit), where graded
    probability: float | None  # the truth's probability of it, where the truth has a policy


class TruthView(TypedDict):
    """What grades a game's moves, in the words its pages print (oracles.graded.Scale)."""

    kind: str  # exact | equilibrium | engine
    name: str
    value: str  # what a move's number is ("equity by gnubg")
    unit: str  # as a table heads it ("points")
    best: str  # the judgement of a move that kept the best value
    lost: str  # of one that gave some up
    against: str


class DecisionView(TypedDict):
    """One graded decision (oracles.graded.Decision) as the replay reads it: the same fields for
    every kind of ground truth; only the words (the page's TruthView) differ."""

    kind: str
    source: str
    unit: Unit  # score | payoff
    span: float
    exact: bool
    loss: float
    judgement: str  # best | lost | equal
    informative: bool
    lost: bool
    value: float | None  # the played move's value on the scale
    probability: float | None  # the truth's probability of the played move, where it has one
    best: list[str]  # the best moves' labels


class EngineView(TypedDict):
    """What the replay shows of one engine-graded move (chess), White's side."""

    source: str
    before: float
    before_text: str
    after: float
    after_text: str
    best: str
    best_played: bool
    pv: JSONValue
    loss: float
    cp_loss: int
    judgement: str | None
    nag: str


class Tokens(TypedDict):
    input: int
    output: int
    reasoning: int


class Step(TypedDict):
    """One ply of a replay: the position its mover saw, the legal moves, the move and its calls."""

    svg: str | None
    whole: str | None
    seen: str | None  # view=image: the board the model was shown, as the site draws it (no marks)
    ply: int
    seat: int
    mover: str
    player: str
    board: str
    legal: list[LegalMove]
    action: int | None
    label: str | None
    optimal: bool | None
    informative: bool | None
    optimal_score: bool | None
    informative_score: bool | None
    decision: DecisionView | None  # the graded decision (oracles.graded.Decision); None: ungraded
    prompt: str | None
    reply: str | None
    reasoning: str | None
    tokens: Tokens
    calls: int
    cache_hits: int
    cost: float | None
    elapsed: float
    failure_kind: str | None
    attempts: list[JSONObject] | None
    note: JSONValue
    engine: EngineView | None  # an engine's evaluations (chess); None elsewhere


class Final(TypedDict):
    """The position after the last move, with the result as the player saw it."""

    board: str
    svg: str | None
    result: str
    whole: str | None


class Replay(TypedDict):
    """Everything the replay page needs for one game."""

    id: int
    run: str
    game: str
    formulation: str
    disguised: bool
    hidden: bool
    title: str
    player: str
    opponent: str
    player_seat: int
    seats: list[str]
    seat_names: list[str]
    first: int  # the seat that moves first (chess: White, seat 1)
    outcome: str
    seed: int
    steps: list[Step]
    engine: str | None
    truth: TruthView | None  # what grades the game; None: nothing does
    final: Final
