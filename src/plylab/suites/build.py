"""Building a suite: positions reached by a named sampler, graded once by the game's ground truth.

A sampler is any classic player spec (`random`, `mcts:sims=100`, `optimal:epsilon=0.3`): it plays
whole games from the suite's seed, every seat the same spec, chance drawn from each game's own
stream, and one decision of each game is drawn uniformly (so positions spread over the move
numbers, and hidden-information positions arrive by their reach under the sampler's play). A
position is kept when it is informative (not every legal move is as good as the best: 003 l.60 excludes the others)
and new (a board, or under hidden information the mover's information state, seen once).

Its truth comes through the one interface every ground truth has (`GroundTruth.grader`, `judge`):
the grade of the first legal move, completed with the grade of every legal move it lacks (an exact
table or an equilibrium grades every move at once; an engine grades the best and the asked move,
so each other move costs one more search, at the limit stated in the file).
"""

from __future__ import annotations

import asyncio
import math
import random
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyspiel

from ..errors import UserError
from ..games import GameDef, get_game
from ..harness.hooks import hooks_for
from ..harness.store import DEFAULT_STORE, Store
from ..oracles.graded import Grade, Grader
from ..players import RunContext, Turn, player_class
from ..quiet import engine_quiet
from ..seeds import derive_seed
from .content import MoveTruth, Position, Suite
from .puzzles import Puzzle, read_puzzles

DEFAULT_SAMPLER = "random"
# An engine grades a suite once, at build time, deeper than live play (oracles.engine.DEFAULT_NODES,
# 20,000): ten times the nodes. Exact tables and equilibria take no limit and ignore it.
BUILD_LIMIT = "nodes=200000"
MAX_TO_END = 400  # plies an optimal line is followed before its length is given up (None)
STALE = 3000  # games in a row without a new informative position: the sampler has reached them all

NOTES = {
    "legal": "legal moves in the position",
    "optimal": "moves as good as the best (within the grade's tolerance)",
    "chance": "the chance a uniformly random legal move is optimal: optimal / legal (the position's own baseline)",
    "margin": "best value minus the second-highest value of any legal move (0 when two moves are best)",
    "gap": "best value minus the best value of a move that is not optimal",
    "ply": "decisions made before the position (chance outcomes not counted)",
    "to_end": "plies to the end along the oracle's first best move at every ply, where the truth is exact; else null",
    "selection": "where the truth states a margin: only positions with one best move, better than the second by at least that much",
    "limit": "the search limit asked of an engine at build time (exact tables and equilibria take none)",
    "sampler": "every seat played by the sampler spec; one decision of each game drawn uniformly; informative and new positions kept; run:NAME: the decisions of a stored run's games, in a seeded order",
}


@dataclass(frozen=True)
class Candidate:
    """A decision reached by the sampler: its history, mover and decisions made before it."""

    history: tuple[int, ...]
    mover: int
    ply: int
    start: str = ""  # a FEN the history starts from (a puzzle); "" for the game's initial state
    about: tuple[tuple[str, Any], ...] = ()  # what the source says of it (a puzzle's id, rating...)


def full_grade(grader: Grader, state: pyspiel.State) -> Grade | None:
    """Every legal move of `state` graded, through the grader alone; None where it cannot grade."""
    legal = state.legal_actions()
    first = grader.judge(state, legal[0]).grade
    if first is None:
        return None
    values = dict(first.expected)
    for action in legal:
        if action not in values:
            more = grader.judge(state, action).grade
            if more is None:
                return None
            values[action] = more.expected[action]
    return replace(first, expected={a: values[a] for a in legal})


def to_end(grader: Grader, state: pyspiel.State, grade: Grade) -> int | None:
    """Plies to the end along the first best move at every ply; None unless the truth is exact."""
    if not grade.exact:
        return None
    s, plies, current = state.clone(), 0, grade
    while True:
        s.apply_action(current.best_actions[0])
        plies += 1
        if s.is_terminal():
            return plies
        if s.is_chance_node() or plies >= MAX_TO_END:
            return None
        judged = grader.judge(s, s.legal_actions()[0]).grade
        if judged is None or not judged.exact:
            return None
        current = full_grade(grader, s) or judged


def features(grade: Grade, ply: int, end: int | None) -> dict[str, Any]:
    values = sorted(grade.expected.values(), reverse=True)
    best = grade.best_actions
    wrong = [v for a, v in grade.expected.items() if a not in best]
    return {
        "legal": len(values),
        "optimal": len(best),
        "chance": len(best) / len(values),
        "margin": values[0] - values[1] if len(values) > 1 else 0.0,
        "gap": values[0] - max(wrong) if wrong else 0.0,
        "ply": ply,
        "to_end": end,
    }


def _position_key(game: GameDef, state: pyspiel.State, mover: int) -> str:
    """What makes a position new: the board, or what the mover knows under hidden information."""
    if game.perfect_information:
        return f"{mover}|{state}"
    return f"{mover}|{state.information_state_string(mover)}"


async def sample_game(
    game: GameDef,
    sampler: str,
    game_seed: int,
    pick: random.Random,
    *,
    formulation: str = "standard",
    asks: Callable[[pyspiel.State], bool] | None = None,
) -> Candidate | None:
    """Play one game with the sampler at every seat; one of its decisions drawn uniformly (only
    those `asks` accepts, where given: Clue's suggester turns, not a disprover's shown card)."""
    hooks = hooks_for(game)
    context = RunContext(job_key=f"suite-sample/{game_seed}")
    seats = game.engine.num_players()
    players = [hooks.player(sampler, game, seat, game_seed, context) for seat in range(seats)]
    draw = hooks.chance(game, game_seed)
    state, decisions, ply = game.new_state(), [], 0
    try:
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(draw(state))
                continue
            seat = state.current_player()
            if asks is None or asks(state):
                decisions.append(Candidate(tuple(state.history()), seat, ply))
            decision = await players[seat].act(
                Turn(game, game.formulation(formulation), state.clone(), seat, ply, context.job_key)
            )
            if decision.action is None or decision.action not in state.legal_actions():
                break
            state.apply_action(decision.action)
            ply += 1
    finally:
        for p in players:
            p.close()
    return pick.choice(decisions) if decisions else None


def _sampled(game: GameDef, sampler: str, seed: int, most: int) -> Iterator[Candidate]:
    """One decision of each of up to `most` games played by the sampler at every seat."""
    pick = random.Random(f"suite-pick:{seed}")
    for played in range(1, most + 1):
        cand = asyncio.run(sample_game(game, sampler, derive_seed(seed, "suite", played), pick))
        if cand is not None:
            yield cand


def _state(game: GameDef, cand: Candidate) -> pyspiel.State:
    state = game.engine.new_initial_state(cand.start) if cand.start else game.new_state()
    for action in cand.history:
        state.apply_action(action)
    return state


def _about(p: Puzzle) -> tuple[tuple[str, Any], ...]:
    return (("puzzle", p.id), ("rating", p.rating), ("themes", list(p.themes)), ("lichess_answer", p.answer))


def _puzzle_like(grade: Grade, margin: float) -> bool:
    """Lichess-style selection: one best move, better than the second by at least `margin` on the
    graded scale (an expected score, or a payoff)."""
    values = sorted(grade.expected.values(), reverse=True)
    return len(grade.best_actions) == 1 and values[0] - values[1] >= margin


def run_candidates(game: GameDef, store_path: Path, run: str, seed: int) -> list[Candidate]:
    """Every decision of the stored run's games of `game`, in a seeded order (each state rebuilt
    from its stored serialization, so its history holds the chance outcomes played)."""
    if not store_path.is_file():
        raise UserError(f"no store at {store_path} (give the store of run '{run}' with --store)")
    store = Store(store_path, create=False)
    try:
        (row,) = store.runs(store.stored_run_name(run))
        games = store.games([row.id])
        mine = [g for g in games if g.game == game.spec]
        if not mine:
            held = sorted({g.game for g in games})
            raise UserError(
                f"run '{run}' in {store_path} holds no games of '{game.spec}'; it holds: {', '.join(held) or 'no games'}"
            )
        moves = store.moves_for_games([g.id for g in mine])
    finally:
        store.close()
    out = []
    for g in mine:
        for m in moves.get(g.id, []):
            state = game.engine.deserialize_state(m.state)
            out.append(Candidate(tuple(state.history()), m.seat, m.ply))
    random.Random(f"suite-from:{seed}").shuffle(out)
    return out


def build_suite(
    name: str,
    game_name: str,
    positions: int,
    *,
    sampler: str | None = None,
    seed: int = 0,
    formulation: str = "standard",
    limit: str = BUILD_LIMIT,
    from_run: str | None = None,
    store: Path | None = None,
    from_puzzles: Path | None = None,
    margin: float | None = None,
) -> Suite:
    """`positions` informative positions of the game, graded: reached by `sampler` from `seed`, or
    (`from_run`) taken from the decisions of a stored run's games in `store`, in a seeded order.
    The move kind's build (`moves.MOVES`); Clue's suites are the deduction kind's (`deduction`)."""
    sampler = sampler or DEFAULT_SAMPLER
    game = get_game(game_name)
    game.formulation(formulation)  # an unknown formulation is refused before any game is played
    truth = game.ground_truth
    if truth is None:
        raise UserError(f"game '{game.spec}' has no ground truth to grade a suite by ({game.oracle_missing})")
    if positions < 1:
        raise UserError(f"--positions must be at least 1 (got {positions})")
    if margin is not None and not 0 <= margin < math.inf:
        raise UserError(
            f"--margin must be a finite number, 0 or more, on the graded scale (got {margin}): the least "
            "by which the one best move beats the second"
        )
    puzzles = read_puzzles(from_puzzles, game) if from_puzzles is not None else None
    if from_run is None and puzzles is None:
        _, cls, _ = player_class(sampler)
        if cls.uses_model:
            raise UserError(
                f"sampler '{sampler}' calls a model; a sampler is a classic player (random, mcts, optimal)"
            )
    grader = truth.grader(game, limit)
    if grader is None:
        raise UserError(f"the ground truth of '{game.spec}' ({truth.name}) is not available on this machine")
    labels = game.formulation("standard")
    seen: set[str] = set()
    found: list[Position] = []
    sources: set[str] = set()
    # give up after STALE games in a row bring no new informative position (the game has no more
    # for this sampler), or after 50 games a position asked
    most_games, stale_limit = max(2000, 50 * positions), STALE
    drawn = stale = 0
    with engine_quiet():
        if puzzles is not None:  # every puzzle, in the file's order
            candidates: Iterable[Candidate] = [
                Candidate((p.first,), -1, 0, p.fen, _about(p)) for p in puzzles
            ]
            stale_limit = most_games = sys.maxsize
        elif from_run is not None:
            candidates = run_candidates(game, store or DEFAULT_STORE, from_run, seed)
            stale_limit = most_games = sys.maxsize  # a stored run is read to its end
        else:
            candidates = _sampled(game, sampler, seed, most_games)
        for cand in candidates:
            if len(found) >= positions or stale >= stale_limit:
                break
            drawn += 1
            stale += 1
            state = _state(game, cand)
            cand = replace(cand, mover=state.current_player())
            key = _position_key(game, state, cand.mover)
            if key in seen:
                continue
            seen.add(key)
            grade = full_grade(grader, state)
            if grade is None or not grade.informative:
                continue
            if margin is not None and not _puzzle_like(grade, margin):
                continue
            stale = 0
            sources.add(grade.source)
            moves = tuple(
                MoveTruth(a, labels.action_label(state, a), v) for a, v in sorted(grade.expected.items())
            )
            found.append(
                Position(
                    index=len(found),
                    history=cand.history,
                    mover=cand.mover,
                    ply=cand.ply,
                    moves=moves,
                    unit=grade.unit,
                    span=grade.span,
                    exact=grade.exact,
                    tolerance=grade.tolerance,
                    source=grade.source,
                    features=features(grade, cand.ply, to_end(grader, state, grade)) | dict(cand.about),
                    start=cand.start,
                )
            )
    drawn_from = (
        f"puzzles:{from_puzzles.name}"
        if from_puzzles is not None
        else f"run:{from_run}"
        if from_run is not None
        else sampler
    )
    origin = f"'{drawn_from}'" if drawn_from != sampler else f"sampler '{sampler}'"
    if len(found) < positions:
        where = f"{drawn} games" if drawn_from == sampler else f"{drawn} positions"
        raise UserError(
            f"only {len(found)} informative positions of '{game.spec}' were reached by {origin} "
            f"in {where} (asked for {positions}); ask for at most {len(found)} with --positions"
        )
    return Suite(
        name=name,
        game=game.spec,
        parameters={k: v for k, v in game.parameters.items()},
        formulation=formulation,
        sampler=drawn_from,
        seed=seed,
        truth={"kind": truth.kind, "name": truth.name, "limit": limit, "sources": sorted(sources)}
        | ({"margin": margin} if margin is not None else {}),
        positions=tuple(found),
        notes=NOTES,
    )
