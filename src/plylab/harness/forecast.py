"""What a run will ask of models, said before it starts: its first line, and all that `--dry-run` prints.

Games to play are the planned ones the store lacks. Model calls per game are learned from the
store's earlier games of the same game and player where it has some (≈), else a typical game's
length where the longest play is no guide (chess: OpenSpiel allows 17,695 plies, a game lasts about
40 moves a side; ≈, the bound beside it), else bounded by the game's longest play (≤). A move makes
as many calls as its way of asking: `sample=majority:N` N, a re-ask (`sample=rethink:N`,
`on_failure=retry:N`) one more per failed answer; a bound (≤) counts every re-ask. A REAPER-family
move makes one to several calls (planner rounds and their executor subtasks). Calls per move come
from the store's earlier moves of that player, else are estimated (a loop: the geometric mean of the
fewest and the most it can make; an `llm`: the fewest), the range shown.
Tokens, for hosted models only: the paper's published output tokens per move where the run is a
paper table, else the store's earlier moves of that model, else unknown; cost the same way from
the store (the paper prints no prices).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..specs import parse_spec
from ..words import count

if TYPE_CHECKING:
    from .store import StoreView

LOCAL = "local"


@dataclass
class ModelLoad:
    """Expected use of one model: calls, and for a hosted model tokens and cost per call."""

    model: str
    calls: float = 0.0
    mark: str = "≈"  # ≈ from earlier games, ≤ a bound, ≥ a floor
    tokens_per_call: float | None = None  # output tokens (the paper's measure), reasoning included
    cost_per_call: float | None = None
    source: str = ""  # where the tokens figure comes from
    low: float | None = None  # fewest and most calls, where the count is an estimate between them
    high: float | None = None
    note: str = ""  # where the moves per game come from, when not from the store or the bound

    def text(self) -> str:
        out = f"{self.model}: {self.mark} {count(self.calls, 'call')}"
        if self.low is not None and self.high is not None:
            out += f" ({round(self.low):,} to {round(self.high):,})"
        if self.note:
            out += f" ({self.note})"
        if self.model == LOCAL:
            return out + " (local, no cost)"
        if self.tokens_per_call is None:
            return out + ", tokens and cost unknown (no earlier moves of this model in the store)"
        tokens = self.calls * self.tokens_per_call
        out += f", {self.mark} {_big(tokens)} output tokens ({self.source})"
        if self.cost_per_call is None:
            return out + ", cost unknown"
        return out + f", {self.mark} ${self.calls * self.cost_per_call:,.2f}"


@dataclass
class Forecast:
    kind: str
    name: str
    games: int  # to play now
    saved: int = 0
    loads: dict[str, ModelLoad] = field(default_factory=dict)
    unit: str = "game"  # what the study plays and saves, as its lines count it (a suite: "answer")

    def load(self, model: str) -> ModelLoad:
        return self.loads.setdefault(model, ModelLoad(model))

    def line(self) -> str:
        from ..players.canonical import printed_run_name  # a made name prints its specs canonically

        head = f"{self.kind} '{printed_run_name(self.name)}': {count(self.games, self.unit)} to play"
        if self.saved:
            head += f" ({self.saved:,} already saved)"
        if not self.loads:
            return head + ", no model calls"
        return head + "; " + "; ".join(load.text() for load in self.loads.values())


def _big(n: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f}{unit}"
    return f"{n:.0f}"


def model_of(spec: str) -> str | None:
    """The model a player spec calls (None for a classic player)."""
    parsed = parse_spec(spec)
    model = parsed.options.get("model")
    if model is None and parsed.name in ("llm", "reaper", "cbr", "memento", "clue-llm"):
        return LOCAL
    return None if model is None else str(model)


def read_store(path: Path) -> StoreView:
    """The store, read-only (a forecast never creates one); empty where there is none."""
    from .store import StoreView

    return StoreView(path)


def earlier_usage(view: StoreView, model: str) -> tuple[float, float | None, int] | None:
    """(output tokens per call, cost per call or None, moves seen) from the store's moves of `model`."""
    u = view.model_usage(model)
    if u is None:
        return None
    cost = float(u.cost or 0) / u.calls if u.costed else None
    return u.output_tokens / u.calls, cost, u.moves


# A source of published token figures (the papers' tables): a model's mean output tokens per move
# over the given columns of a game's table, if it prints them (`paper.published.token_figures`).
TokenFigures = Callable[[str, list[str], str], float | None]


def add_tokens(
    forecast: Forecast,
    view: StoreView,
    paper: TokenFigures | None,
    columns: list[str],
    game: str = "",
) -> None:
    """Tokens and cost per call for every hosted model of the forecast; `paper` (the reproduced
    table's published figures) comes first, then what earlier moves in the store used."""
    for model, load in forecast.loads.items():
        if model == LOCAL:
            continue
        from_paper = None if paper is None else paper(model, columns, game)
        usage = earlier_usage(view, model)
        if from_paper is not None:
            load.tokens_per_call, load.source = from_paper, f"the paper's {from_paper:,.0f} per move"
        elif usage is not None:
            load.tokens_per_call = usage[0]
            load.source = f"{usage[0]:,.0f} per call over {usage[2]:,} earlier moves in the store"
        if usage is not None:
            load.cost_per_call = usage[1]


# Players whose every move runs the planner-executor loop (players/reaper/loop.py).
LOOP_PLAYERS = ("reaper", "cbr", "memento")


def loop_calls(spec: str) -> tuple[int, int]:
    """The fewest and the most model calls one move of a REAPER-family `spec` makes: the planner
    answering at once, or `iterations` planner rounds with `subtasks` executor calls between them;
    a `descriptor` adds one call per move. (1, 1) for any other player."""
    from ..players.reaper.options import ReaperOptions

    parsed = parse_spec(spec)
    if parsed.name not in LOOP_PLAYERS:
        return 1, 1
    fields = ReaperOptions.model_fields
    opts = parsed.options

    def number(key: str) -> int:
        return int(str(opts.get(key, fields[key].default)))

    descriptor = str(opts.get("descriptor", fields["descriptor"].default)).lower() in ("on", "true", "1")
    rounds, subtasks = number("iterations"), number("subtasks")
    return 1 + descriptor, rounds + (rounds - 1) * subtasks + rounds * descriptor


def answer_calls(spec: str) -> tuple[int, int]:
    """The fewest and the most model calls one move of an `llm` `spec` makes by its way of asking
    (players/llm.py): `sample=majority:N` asks N times; each answer is one call, and up to N more
    under `sample=rethink:N` or `on_failure=retry:N` when it is illegal or unreadable. (1, 1) for
    any other player."""
    from ..players.llm import policy_of, sampler_of

    parsed = parse_spec(spec)
    if parsed.name != "llm":
        return 1, 1
    sampler, samples = sampler_of(str(parsed.options.get("sample", "one")))
    _, retries = policy_of(str(parsed.options.get("on_failure", "forfeit")))
    if sampler == "rethink":
        retries = samples
    answers = samples if sampler == "majority" else 1
    return answers, answers * (1 + retries)


def move_calls(spec: str) -> tuple[int, int]:
    """The fewest and the most model calls one move of `spec` makes: its loop (REAPER's family) or
    its way of asking (`llm`'s sampling and re-asks)."""
    low, high = loop_calls(spec)
    if (low, high) != (1, 1):
        return low, high
    return answer_calls(spec)


def calls_per_move(view: StoreView, game: str, spec: str) -> tuple[float, int, int]:
    """(expected calls per move, fewest, most) for `spec` in `game`: the store's earlier moves of
    this player where it has some, else the geometric mean of the fewest and the most for a loop (its
    rounds vary by design), else the fewest (an `llm` re-asks only after a failure)."""
    low, high = move_calls(spec)
    seen = view.mean_move_calls(game, spec) if high > 1 else None
    if seen is not None:
        return seen, low, high
    if parse_spec(spec).name in LOOP_PLAYERS:
        return math.sqrt(low * high), low, high
    return float(low), low, high


def game_bound(game: str) -> int:
    """The most moves one seat can make in a game of `game` (OpenSpiel's longest play, halved)."""
    from ..games import get_game

    try:
        return max(1, math.ceil(int(get_game(game).engine.max_game_length()) / 2))
    except Exception:  # noqa: BLE001 - a game without a length bound: say at least one move
        return 1


# Moves a seat makes in a typical game, where OpenSpiel's longest play says nothing of it: chess and
# its variants end long before the 50-move rule's bound (17,695 plies); a game of chess lasts about
# 40 moves a side (the 80-ply game oracles/engine.py's default limit is timed on).
TYPICAL_MOVES = {"chess": 40, "antichess": 40, "crazyhouse": 40}


def typical_moves(game: str) -> int | None:
    """Moves per seat in a typical game of `game` where its longest play is no guide; else None."""
    return TYPICAL_MOVES.get(parse_spec(game).name)


def moves_per_game(game: str, load: ModelLoad) -> int:
    """Moves per seat for a forecast without earlier games: a typical game's (≈, noted on `load`),
    else the longest play's bound (the caller marks it)."""
    typical = typical_moves(game)
    if typical is None:
        return game_bound(game)
    load.note = f"a typical game: {typical} moves a side, at most {game_bound(game):,}"
    return typical
