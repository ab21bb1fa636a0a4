"""One game: state -> view -> player.act -> move -> apply, scored against its ground truth as it goes.

The one loop for every sequential OpenSpiel game: any number of seats, chance moves drawn from the
job's seed, and hidden information, where what a seat reads is the formulation's rendering of its
own information state (`Formulation.render_state` of a state in which it is to move), never the
whole state. The record keeps the whole state, serialized, for replays and oracles.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, TypedDict

import pyspiel

from ..games import Formulation, GameDef, get_game
from ..jsontypes import JSONObject
from ..oracles.graded import Grader
from ..players import Decision, GameResult, Player, RunContext, Turn
from ..players.canonical import canonical_spec
from .hooks import hooks_for
from .plan import GameJob
from .records import GameRecord
from .rows import MoveRow, json_text


class Scored(TypedDict, total=False):
    """A move's fields that its ground truth fills, as stored (`MoveRow`'s of the same names)."""

    values_json: str | None
    optimal: bool
    informative: bool
    scores_json: str | None
    optimal_score: bool | None
    informative_score: bool
    grade: str | None
    loss: float


def _score(grader: Grader | None, state: pyspiel.State, action: int | None) -> Scored:
    """The move against the game's ground truth: exact values where it has them, and always the one
    graded scale (oracles.graded), whose loss is stored beside the grade for SQL to sum. A decision
    the ground truth cannot grade (an engine's rules differ from OpenSpiel's there) is left unscored."""
    if grader is None or action is None:
        return {}
    judged = grader.judge(state, action)
    out: Scored = {}
    mv = judged.values
    if mv is not None:
        out["values_json"], out["optimal"], out["informative"] = (
            json_text(mv.values),
            mv.optimal(action),
            mv.informative,
        )
        if mv.scores is not None:
            out["scores_json"] = json_text(mv.scores)
            out["optimal_score"] = mv.optimal_by_score(action)
            out["informative_score"] = mv.informative_by_score
    grade = judged.grade
    if grade is not None:
        out["grade"], out["loss"] = json_text(grade.to_json()), grade.loss(action)
        if (
            mv is None and grade.exact
        ):  # exact without game values (Pig's win probabilities): optimal is loss 0
            out["optimal"], out["informative"] = grade.is_best(action), grade.informative
    return out


class _Grading:
    """A game's moves graded against its ground truth: at once, in the game's thread, by a grader
    that judges one decision at a time (an exact table); by one with threads of its own (an engine's
    pool of processes, oracles/engine_pool.py) in those threads while the game goes on, so its
    positions are searched at once. Every grade is in before the game's moves are made, and a
    grader's failure (an engine given up) ends the game at the next move, unfinished, as before."""

    def __init__(self, grader: Grader | None) -> None:
        self.grader = grader
        self.executor: Executor | None = getattr(grader, "executor", None)
        self.scored: list[Scored | asyncio.Future[Scored]] = []  # one per move, in order

    def add(self, state: pyspiel.State, action: int | None) -> None:
        """Grade the next move, `action` at `state` (now, or in the grader's threads)."""
        if self.grader is None or action is None:
            self.scored.append({})
            return
        if self.executor is None:
            self.scored.append(_score(self.grader, state, action))
            return
        for done in self._pending():  # a failure already in: the game stops here
            if done.done() and not done.cancelled() and done.exception() is not None:
                done.result()
        loop = asyncio.get_running_loop()
        self.scored.append(loop.run_in_executor(self.executor, _score, self.grader, state.clone(), action))

    def _pending(self) -> list[asyncio.Future[Scored]]:
        return [s for s in self.scored if isinstance(s, asyncio.Future)]

    async def finish(self) -> list[Scored]:
        """Every move's grade, in order, once each is in."""
        return [await s if isinstance(s, asyncio.Future) else s for s in self.scored]

    def cancel(self) -> None:
        """Grades not started are dropped (the game ended otherwise: it is not saved)."""
        for later in self._pending():
            later.cancel()
        self.scored.clear()


@dataclass(frozen=True)
class _Played:
    """What happened at one move, kept until the game ends and its move is made (`_move`): the
    state before it (a clone of the game's own; the player's may have been explored), who moved,
    what they decided, and how long they took."""

    turn: Turn
    before: pyspiel.State
    player: Player[Any]
    decision: Decision
    elapsed: float


def _move(played: _Played, scored: Scored, annotation: JSONObject | None) -> MoveRow:
    """The move as stored, in one expression: what was played, its grade, the game's account of it."""
    turn, state, decision = played.turn, played.before, played.decision
    action, attempts, player = decision.action, decision.attempts, played.player
    final = attempts[-1] if attempts else None
    costs = [a.cost for a in attempts if a.cost is not None]
    return MoveRow(
        ply=turn.ply,
        seat=turn.seat,
        player=canonical_spec(str(player.spec)),
        state=state.serialize(),
        # What a model or a person read; a classic player's view is re-rendered from `state` on demand.
        observation=turn.formulation.render_state(state)
        if player.shows_observation or player.uses_model
        else None,
        legal=json_text(state.legal_actions()),
        action=action,
        action_label=None if action is None else turn.formulation.action_label(state, action),
        elapsed=played.elapsed,
        failure_kind=decision.failure,
        note=json_text(decision.note or None),
        annotation=json_text(annotation),
        prompt=None if final is None else final.prompt,
        reply=None if final is None else final.reply,
        reasoning=None if final is None else final.reasoning,
        input_tokens=sum(a.input_tokens for a in attempts),
        output_tokens=sum(a.output_tokens for a in attempts),
        reasoning_tokens=sum(a.reasoning_tokens for a in attempts),
        cost=sum(costs) if costs else None,
        calls=sum(1 for a in attempts if a.prompt is not None and not a.cached),
        cache_hits=sum(1 for a in attempts if a.cached),
        attempts=json_text([a.to_dict() for a in attempts]) if attempts else None,
        **scored,
    )


@lru_cache(maxsize=256)
def _formulation(game: str, spec: str) -> Formulation:
    """Formulations are stateless renderers: one per (game, spec) per process."""
    return get_game(game).formulation(spec)


def outcome_for(returns: list[float], seat: int, forfeit_by: int | None) -> str:
    """The seat's result: a win when it alone has the best return, a draw when it shares the best,
    a loss otherwise (for two seats: more, equal or less than the other)."""
    if forfeit_by == seat:
        return "failure"
    mine = returns[seat]
    best = max(r for s, r in enumerate(returns) if s != seat)
    return "win" if mine > best else "loss" if mine < best else "draw"


def forfeit_returns(seats: int, forfeit_by: int) -> list[float]:
    """Returns of a forfeited game: -1 to the seat that failed, the +1 it loses shared by the rest
    (for two seats [-1, 1], as plylab always wrote)."""
    share = 1.0 / (seats - 1)
    return [-1.0 if s == forfeit_by else share for s in range(seats)]


async def play_game(job: GameJob, context: RunContext | None = None, *, score: bool = True) -> GameRecord:
    """Play one job to the end. Deterministic in the job for every non-LLM player."""
    m = job.matchup
    game: GameDef = get_game(m.game)
    formulation = _formulation(m.game, m.formulation)
    base = context or RunContext()
    ctx = replace(base, job_key=job.key)
    hooks = hooks_for(game)  # a game's own players, deal and annotations (harness.hooks)
    players = [hooks.player(spec, game, seat, job.seed, ctx) for seat, spec in enumerate(job.seat_specs())]
    truth = (
        game.ground_truth if score and m.score else None
    )  # exact, equilibrium or engine (games.base.GroundTruth)
    grading = _Grading(truth.grader(game, m.score_limit) if truth is not None else None)
    state = game.new_state()
    annotator = hooks.annotator(game, state)
    extra: dict[str, Any] | None = None
    played: list[_Played] = []
    annotations: list[JSONObject | None] = []
    forfeit_by: int | None = None
    failure_kind: str | None = None
    started = time.time()
    try:
        draw = hooks.chance(game, job.seed)
        while not state.is_terminal():
            if state.is_chance_node():  # dice and the like: drawn from the job's seed, not a move
                state.apply_action(draw(state))
                continue
            seat = state.current_player()
            turn = Turn(game, formulation, state.clone(), seat, len(played), job.key)
            t0 = time.perf_counter()
            decision = await players[seat].act(turn)
            elapsed = time.perf_counter() - t0
            if decision.action is not None and decision.action not in state.legal_actions():
                decision = Decision(None, decision.attempts, failure="illegal", note=decision.note)
            played.append(_Played(turn, state.clone(), players[seat], decision, elapsed))
            grading.add(state, decision.action)
            annotations.append(annotator.before(state, seat, decision) if annotator is not None else None)
            if decision.action is None:
                forfeit_by, failure_kind = seat, decision.failure or "failure"
                break
            state.apply_action(decision.action)
            if annotator is not None:
                annotator.after(state)
        # the moves, made now that every grade is in and every annotation complete (a turn ends later)
        scored = await grading.finish()
        moves = [_move(p, g, a) for p, g, a in zip(played, scored, annotations, strict=True)]
        if annotator is not None:
            extra = annotator.end(state, moves)
        if forfeit_by is None and game.count is not None:  # the game's own count (Go: GNU Go's)
            returns, rules = await asyncio.to_thread(game.count, state)
            extra = (extra or {}) | {"scoring": rules}
        elif forfeit_by is None:
            returns = [float(r) for r in state.returns()]
        else:
            returns = forfeit_returns(len(players), forfeit_by)
        for seat, p in enumerate(players):
            await p.game_over(GameResult(tuple(returns), seat, forfeit_by, tuple(state.history())))
    finally:
        grading.cancel()
        for p in players:
            p.close()
        if annotator is not None:
            annotator.close()
    return GameRecord(
        job_key=job.key,
        idx=job.idx,
        game=m.game,
        formulation=m.formulation,
        player=canonical_spec(m.player),  # one name per player (players.canonical)
        opponent=canonical_spec(m.opponent),
        player_seat=job.player_seat,
        seed=job.seed,
        returns=returns,
        outcome=outcome_for(returns, job.player_seat, forfeit_by),
        forfeit_by=forfeit_by,
        failure_kind=failure_kind,
        moves=moves,
        started=started,
        finished=time.time(),
        # a game of more than two seats names every seat's player (the columns name two), and a
        # game's annotator adds its own summary (harness.hooks)
        extra=({"seats": [canonical_spec(s) for s in job.seat_specs()]} if m.seats > 2 else {})
        | (extra or {})
        or None,
    )
