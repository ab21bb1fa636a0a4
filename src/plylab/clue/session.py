"""One game from seed to record: seat the players, deal, loop turns, judge, and report.

Everything random comes from the game seed: the seating (the spec list is shuffled), the deal,
and each player's own stream, so a game is a pure function of (specs, seed, turn limit) for the
bots and replays from the response cache for models.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..harness.seeds import derive_seed
from ..players.base import RunContext
from .base import ClueDecision, make_clue_player
from .cards import Triple
from .engine import DEFAULT_TURN_LIMIT, ClueState, load
from .events import Accusation, Suggestion
from .referee import Referee, Snapshot


@dataclass
class TurnRecord:
    turn: int
    round: int
    seat: int
    decision: ClueDecision
    disprover: int | None = None
    shown: int | None = None
    correct: bool | None = None  # accusations only
    claims: list[tuple[int, int, str]] = field(default_factory=list)


@dataclass
class GameLog:
    seed: int
    seats: list[str]  # spec per seat, after shuffling
    envelope: Triple
    hands: list[list[int]]
    winner: int | None
    end_reason: str  # solved | all_out | turn_limit
    turns: list[TurnRecord]
    snapshots: list[Snapshot]
    rounds: int
    solution_suggested_turn: int | None
    started: float
    finished: float


async def play_game(
    specs: list[str],
    seed: int,
    *,
    turn_limit: int = DEFAULT_TURN_LIMIT,
    context: RunContext | None = None,
    judge: bool = True,
    seat_seed: Callable[..., int] = derive_seed,
) -> GameLog:
    """Play one game; `specs` are shuffled onto seats by the seed. `judge=False` skips the
    referee (no metrics; used to time bare play). `seat_seed` derives each player's stream
    (runs stored before seeds were shared pass the old function, see study.py)."""
    started = time.time()
    rng = random.Random(seed)
    seats = list(specs)
    rng.shuffle(seats)
    game = load(players=len(seats), turn_limit=turn_limit)
    state: ClueState = game.new_initial_state()
    state.deal_randomly(rng)
    context = context or RunContext()
    players = [
        make_clue_player(spec, seat, seat_seed(seed, seat), context) for seat, spec in enumerate(seats)
    ]
    referee = Referee(state) if judge else None
    turns: list[TurnRecord] = []
    snapshots: list[Snapshot] = []
    try:
        while not state.is_terminal():
            seat, view = state.current, state.view(state.current)
            decision = await players[seat].act(view)
            record = TurnRecord(view.turn, view.round, seat, decision)
            if referee is not None:
                record.claims = referee.judge(seat, decision.deductions)
            if decision.kind == "suggest" and decision.cards is not None:
                state.apply_action(game.suggest_action(decision.cards))
                if state.pending is not None:
                    disprover = state.pending[2]
                    state.apply_action(players[disprover].show(state.view(disprover)))
                event = state.events[-1]
                assert isinstance(event, Suggestion)
                record.disprover, record.shown = event.disprover, event.shown
            elif decision.kind == "accuse" and decision.cards is not None:
                state.apply_action(game.accuse_action(decision.cards))
                event = state.events[-1]
                assert isinstance(event, Accusation)
                record.correct = event.correct
            else:
                decision.kind, decision.cards = "pass", None
                state.apply_action(game.pass_action)
            turns.append(record)
            if referee is not None:
                snapshots.extend(referee.after_turn(record.turn))
    finally:
        for player in players:
            player.close()
        if referee is not None:
            referee.close()
    envelope = tuple(sorted(state.envelope))
    solution_turn = next(
        (e.turn for e in state.events if isinstance(e, Suggestion) and tuple(sorted(e.cards)) == envelope),
        None,
    )
    if state.winner is not None:
        reason = "solved"
    elif len(state.out) == state.n:
        reason = "all_out"
    else:
        reason = "turn_limit"
    return GameLog(
        seed=seed,
        seats=seats,
        envelope=(envelope[0], envelope[1], envelope[2]),
        hands=[sorted(h) for h in state.hands],
        winner=state.winner,
        end_reason=reason,
        turns=turns,
        snapshots=snapshots,
        rounds=state.round,
        solution_suggested_turn=solution_turn,
        started=started,
        finished=time.time(),
    )
