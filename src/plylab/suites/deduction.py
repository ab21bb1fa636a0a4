"""Clue deduction suites: a seat's observations so far, and "which cards can you now place, and
what is in the envelope?", scored against the SAT oracle as the Clue paper scores deductions.

A snapshot is a suggester's turn of a Clue game simulated by classic Clue players (every seat
the same spec, `clue-matrix` by default: the paper's tool bot), drawn uniformly from each game's
turns by the suites' own sampler (`build.sample_game`), or of a stored Clue run's games
(`--from`). Its truth is what the complete-deduction oracle (`clue.oracle`, a SAT backbone over
the seat's view alone) entails: every (card, holder) outside the seat's own hand, the envelope
being a holder. A snapshot is kept when that is not empty and the seat's information state is new.

Putting it to a player is the turn the Clue study plays: the seat's `ClueView` rebuilt from the
stored history, the player's own `act` (for `clue-llm` the study's prompt and reply schema: its
action and its deductions, one call). What it states as known is judged as the Clue paper judges
deductions (000 l.107; the referee's rule, `clue.referee`): each claim outside its own hand is
correct (true in the deal) or incorrect (false); a correct claim not entailed is unsupported (a
guess that happened to be true); and every entailed fact it did not state is missed.

All of it is the suite kind `DEDUCTION` (`kinds.SuiteKind`), the one module that knows what a Clue
suite is: its build, the check of a read snapshot (its `entailed` facts, `Position.more`), its ask and
score, its table (`suite-deductions`), its `suite show` histograms and its site page.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..analysis.stats import wilson
from ..errors import UserError
from ..games import GameDef, get_game
from ..games.boards.base import VALUE_COLOURS
from ..render.table import Table, register_table
from ..seeds import derive_seed
from .answer import Answer, Question, SuiteResults
from .build import BUILD_LIMIT, STALE, Candidate, run_candidates, sample_game
from .content import Position, Suite, field_list, field_whole
from .kinds import of_kind
from .report import BOOTSTRAP_SEED, RESAMPLES, by_player, figure, histogram_bar, player_label

if TYPE_CHECKING:
    import pyspiel

    from ..players import RunContext

GAME = "clue"  # the game whose suites are of this kind

CLUE_SAMPLER = "clue-matrix"  # the paper's tool bot: games that end as the classic tool plays them
TRUTH = {
    "kind": "deduction",
    "name": "SAT backbone of the seat's observations (python-sat, Glucose 4): every entailed (card, holder)",
    "limit": "",
    "sources": ["clue-oracle"],
}
NOTES = {
    "entailed": "facts (card, holder) outside the seat's own hand that its observations entail; the envelope is a holder",
    "envelope": "envelope cards among them",
    "matrix": "of those, how many the possibility matrix's rules (R1-R8) find: the rest need complete deduction",
    "beyond_matrix": "entailed minus matrix: what only complete deduction places",
    "events": "events the seat has observed",
    "turn": "the turn being played (1-based)",
    "ply": "decisions made before the snapshot (shows included; chance not counted)",
    "sampler": "every seat played by the sampler spec (a classic Clue player); one suggester's turn of each game drawn uniformly; snapshots with something entailed and a new information state kept",
    "scoring": "a claim outside the own hand: correct (true in the deal) or incorrect; unsupported = correct but not entailed; missed = entailed but not claimed (000 l.107)",
}


def clue_game(game_spec: str) -> GameDef:
    """The Clue game (registering it with plylab's games on first use)."""
    from .. import clue  # noqa: F401  registers the game `clue`, its hooks and its players

    return get_game(game_spec)


def facts(pos: Position) -> tuple[tuple[int, int], ...]:
    """A snapshot's truth, as its line holds it (`Position.more`): every (card, holder) entailed."""
    return tuple(fact(f) for f in field_list(pos.more, "entailed"))


def fact(value: object) -> tuple[int, int]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError(f"'entailed' holds [card, holder] pairs (got {value!r})")
    return field_whole({"card": value[0]}, "card"), field_whole({"holder": value[1]}, "holder")


def entailed(state: Any, seat: int) -> list[tuple[int, int]]:
    """What the seat's observations entail, outside its own hand: (card, holder), sorted."""
    from ..clue.oracle import ClueOracle

    view = state.view(seat)
    oracle = ClueOracle.for_view(view)
    try:
        return sorted((c, h) for c, h in oracle.known_holders().items() if c not in view.hand)
    finally:
        oracle.close()


def _matrix_found(state: Any, seat: int, facts: list[tuple[int, int]]) -> int:
    from ..clue.matrix import PossibilityMatrix

    view = state.view(seat)
    known = PossibilityMatrix.for_view(view).known_holders()
    return sum(1 for c, h in facts if known.get(c) == h)


def _simulated(game: GameDef, sampler: str, seed: int, most: int) -> Iterator[Candidate | None]:
    """One suggester's turn of each of up to `most` games played by `sampler` at every seat."""
    import asyncio

    pick = random.Random(f"suite-pick:{seed}")
    for played in range(1, most + 1):
        yield asyncio.run(
            sample_game(
                game,
                sampler,
                derive_seed(seed, "suite", played),
                pick,
                formulation="text",
                asks=lambda s: s.pending is None,
            )
        )


def build_deduction_suite(
    name: str,
    game_spec: str,
    positions: int,
    *,
    sampler: str,
    seed: int,
    from_run: str | None = None,
    store: Path | None = None,
) -> Suite:
    """`positions` deduction snapshots of Clue games played by `sampler` at every seat from `seed`,
    or (`from_run`) of the suggester's turns of a stored Clue run's games in `store`, in a seeded order."""
    from ..clue.base import clue_player_class
    from ..harness.store import DEFAULT_STORE

    game = clue_game(game_spec)
    if positions < 1:
        raise UserError(f"--positions must be at least 1 (got {positions})")
    candidates: Iterable[Candidate | None]
    if from_run is not None:
        candidates = run_candidates(game, store or DEFAULT_STORE, from_run, seed)
        most = stale_limit = sys.maxsize  # a stored run is read to its end
        source = f"run:{from_run}"
    else:
        _, cls, _ = clue_player_class(sampler)
        if cls.uses_model:
            raise UserError(
                f"sampler '{sampler}' calls a model; a Clue sampler is a classic Clue player "
                "(clue-matrix, clue-oracle, clue-random)"
            )
        most, stale_limit = max(200, 20 * positions), STALE
        candidates = _simulated(game, sampler, seed, most)
        source = sampler
    seen: set[str] = set()
    found: list[Position] = []
    stale = played = 0
    for cand in candidates:
        if len(found) >= positions or stale >= stale_limit:
            break
        played += 1
        stale += 1
        if cand is None:
            continue
        state: Any = game.new_state()
        for action in cand.history:
            state.apply_action(action)
        if state.pending is not None or state.is_terminal():  # a shown card, not a turn to deduce on
            continue
        cand = replace(cand, mover=state.current_player())
        key = f"{cand.mover}|{state.information_state_string(cand.mover)}"
        if key in seen:
            continue
        seen.add(key)
        facts = entailed(state, cand.mover)
        if not facts:
            continue
        stale = 0
        matrix = _matrix_found(state, cand.mover, facts)
        n = cast(Any, state).n
        view = state.view(cand.mover)
        found.append(
            Position(
                index=len(found),
                history=cand.history,
                mover=cand.mover,
                ply=cand.ply,
                moves=(),
                unit="facts",
                span=float(len(facts)),
                exact=True,
                tolerance=0.0,
                source="clue-oracle",
                features={
                    "entailed": len(facts),
                    "envelope": sum(1 for _, h in facts if h == n),
                    "matrix": matrix,
                    "beyond_matrix": len(facts) - matrix,
                    "events": len(view.events),
                    "turn": view.turn,
                    "ply": cand.ply,
                },
                more={"entailed": [list(f) for f in facts]},
            )
        )
    if len(found) < positions:
        where = (
            f"sampler '{sampler}' in {played} games" if from_run is None else f"'{source}' in {played} turns"
        )
        raise UserError(
            f"only {len(found)} deduction snapshots of '{game.spec}' were reached by {where} "
            f"(asked for {positions}); ask for at most {len(found)} with --positions"
        )
    return Suite(
        name=name,
        game=game.spec,
        parameters=dict(game.parameters),
        formulation="text",
        sampler=source,
        seed=seed,
        truth=dict(TRUTH),
        positions=tuple(found),
        notes=NOTES,
    )


def judge(
    claims: dict[int, int], hand: set[int], holder: list[int], truth: tuple[tuple[int, int], ...]
) -> dict[str, Any]:
    """A snapshot's answer judged: its claims outside `hand` against the deal (`holder`: card ->
    holder) and the oracle's entailed facts (`truth`)."""
    facts = set(truth)
    judged = {c: h for c, h in claims.items() if c not in hand}
    correct = sorted((c, h) for c, h in judged.items() if holder[c] == h)
    incorrect = sorted((c, h) for c, h in judged.items() if holder[c] != h)
    unsupported = [f for f in correct if f not in facts]
    missed = sorted(facts - set(correct))
    return {
        "claims": len(judged),
        "correct": len(correct),
        "incorrect": len(incorrect),
        "unsupported": len(unsupported),
        "entailed": len(facts),
        "missed": len(missed),
        "stated": [list(f) for f in sorted(judged.items())],
    }


def build_clue_suite(
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
    """`plylab suite build --game clue`: the build's options checked for Clue (the ones for move
    suites refused in one line), then `build_deduction_suite`."""
    for flag, given in (("--from-puzzles", from_puzzles), ("--margin", margin)):
        if given is not None:
            raise UserError(
                f"{flag} is not for clue: a Clue suite's snapshots come from --sample games or --from RUN"
            )
    if formulation != "standard" or limit not in ("", BUILD_LIMIT):
        raise UserError(
            "clue takes no --formulation or --limit: its snapshots are asked in its text, graded exactly"
        )
    return build_deduction_suite(
        name, game_name, positions, sampler=sampler or CLUE_SAMPLER, seed=seed, from_run=from_run, store=store
    )


def ratio_interval(
    pairs: Sequence[tuple[int, int]], *, resamples: int = RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> tuple[float | None, float | None, float | None]:
    """sum(numerators) / sum(denominators) over snapshots, with a seeded percentile bootstrap over
    the snapshots (the facts of one snapshot are not independent trials, so a Wilson interval on
    the pooled facts would be too narrow)."""
    den = sum(d for _, d in pairs)
    if not den:
        return None, None, None
    rate = sum(n for n, _ in pairs) / den
    rng = random.Random(seed)
    draws: list[float] = []
    for _ in range(resamples):
        sample = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        d = sum(x for _, x in sample)
        if d:
            draws.append(sum(x for x, _ in sample) / d)
    draws.sort()
    low = draws[int(0.025 * (len(draws) - 1))]
    high = draws[int(0.975 * (len(draws) - 1))]
    return rate, low, high


DEDUCTION_COLUMNS = [
    "suite",
    "player",
    "n",
    "correct rate [95% CI]",
    "incorrect rate [95% CI]",
    "missed rate [95% CI]",
    "unsupported",
    "correct / snapshot",
    "incorrect / snapshot",
    "perfect [95% CI]",
    "failures",
    "calls",
    "tokens in",
    "tokens out",
]


def _interval(r: tuple[float | None, float | None, float | None]) -> str:
    return f"{figure(r[0])} [{figure(r[1])}, {figure(r[2])}]"


@register_table(
    "suite-deductions",
    "per Clue deduction suite and player: correct, incorrect and missed rates against the SAT oracle (000 l.107), with intervals",
)
def deductions_table(results: SuiteResults) -> Table:
    rows: list[list[str]] = []
    data: list[dict[str, object]] = []
    for run, answers in results.runs:
        for player, mine in by_player(answers).items():
            ds = [a.deduction or {} for a in mine]
            n = len(mine)
            claims = [(d.get("correct", 0), d.get("claims", 0)) for d in ds]
            correct = ratio_interval(claims)
            incorrect = ratio_interval([(d.get("incorrect", 0), d.get("claims", 0)) for d in ds])
            missed = ratio_interval([(d.get("missed", 0), d.get("entailed", 0)) for d in ds])
            perfect = wilson(sum(a.optimal for a in mine), n)
            totals = {
                k: sum(int(d.get(k, 0)) for d in ds)
                for k in ("claims", "correct", "incorrect", "unsupported", "missed", "entailed")
            }
            failures = sum(1 for a in mine if a.failure is not None)
            calls = sum(a.calls for a in mine)
            tin, tout = sum(a.input_tokens for a in mine), sum(a.output_tokens for a in mine)
            rows.append(
                [
                    run.suite,
                    player,
                    str(n),
                    _interval(correct),
                    _interval(incorrect),
                    _interval(missed),
                    str(totals["unsupported"]),
                    figure(totals["correct"] / n, 2),
                    figure(totals["incorrect"] / n, 2),
                    f"{figure(perfect.rate)} [{figure(perfect.low)}, {figure(perfect.high)}]",
                    str(failures),
                    str(calls),
                    str(tin),
                    str(tout),
                ]
            )
            data.append(
                {
                    "suite": run.suite,
                    "hash": run.hash,
                    "game": run.game,
                    "player": player,
                    "n": n,
                    **totals,
                    "correct_rate": dict(zip(("rate", "low", "high"), correct)),
                    "incorrect_rate": dict(zip(("rate", "low", "high"), incorrect)),
                    "missed_rate": dict(zip(("rate", "low", "high"), missed)),
                    "perfect": perfect.to_json(),
                    "failures": failures,
                    "calls": calls,
                    "input_tokens": tin,
                    "output_tokens": tout,
                }
            )
    notes = [
        "a claim: a (card, holder) the player states it knows, outside its own hand; correct = true in the deal, incorrect = false (000 l.107)",
        "correct and incorrect rates: of the claims; missed rate: of the facts the SAT oracle entails that the player did not state",
        "unsupported: correct claims the observations do not entail (guesses); perfect: every entailed fact stated, none false",
        f"rate intervals: percentile bootstrap over snapshots, {RESAMPLES} resamples, seed {BOOTSTRAP_SEED}; perfect: Wilson",
    ]
    return Table(
        DEDUCTION_COLUMNS, rows, notes=notes, title="Suites: Clue deductions", data={"deductions": data}
    )


class DeductionKind:
    """Clue deduction snapshots: the seat's observations so far, its stated deductions judged against
    the SAT oracle's entailed facts. An answer is `optimal` when the deductions are perfect (every
    entailed fact stated, none false) and its `loss` is the incorrect plus the missed facts, so the
    pairs table compares players on the same footing as for moves."""

    name = "deduction"

    def claims(self, game_spec: str) -> bool:
        return game_spec.split(":", 1)[0] == GAME

    def game(self, game_spec: str) -> GameDef:
        return clue_game(game_spec)

    def build(
        self,
        name: str,
        game_spec: str,
        positions: int,
        *,
        sampler: str | None,
        seed: int,
        formulation: str,
        limit: str,
        from_run: str | None,
        store: Path | None,
        from_puzzles: Path | None,
        margin: float | None,
    ) -> Suite:
        return build_clue_suite(
            name,
            game_spec,
            positions,
            sampler=sampler,
            seed=seed,
            formulation=formulation,
            limit=limit,
            from_run=from_run,
            store=store,
            from_puzzles=from_puzzles,
            margin=margin,
        )

    def check(self, pos: Position, state: pyspiel.State) -> None:
        """The snapshot's entailed facts, and its difficulty counts whole numbers."""
        if pos.more.get("entailed") is None:
            raise ValueError("a Clue suite's position needs its 'entailed' facts")
        facts(pos)
        for key in ("entailed", "beyond_matrix"):
            field_whole(pos.features, key)

    def player(self, game_spec: str, spec: str) -> str | None:
        from ..clue.base import make_clue_player

        make_clue_player(spec, 0, 0).close()
        return None

    def uses_model(self, game_spec: str, spec: str) -> bool:
        return _uses_model(spec)

    async def ask(self, question: Question, context: RunContext) -> Answer:
        """Put a snapshot to a Clue player as the study puts a turn to it: the seat's view rebuilt,
        the player's own `act`; its stated deductions judged (`judge`)."""
        import time

        from ..clue.base import make_clue_player

        q, pos = question, question.position
        state = cast(Any, pos.state(clue_game(q.game)))
        view = state.view(pos.mover)
        player = make_clue_player(q.player, pos.mover, q.seed, replace(context, job_key=q.key))
        t0 = time.perf_counter()
        try:
            decision = await player.act(view)
        finally:
            player.close()
        elapsed = time.perf_counter() - t0
        claims = {} if decision.deductions is None else dict(decision.deductions.known)
        verdict = judge(claims, set(view.hand), list(state.holder), facts(pos))
        if decision.deductions is not None:
            verdict["envelope_belief"] = [decision.deductions.envelope.get(i) for i in range(3)]
        call = decision.call
        return Answer(
            position=pos.index,
            player=q.player,
            position_id=pos.id,
            action=None,
            label=decision.kind,
            optimal=decision.failure is None and verdict["incorrect"] == 0 and verdict["missed"] == 0,
            loss=float(verdict["incorrect"] + verdict["missed"]),
            span=pos.span,
            chance=0.0,
            features=pos.features,
            failure=decision.failure,
            prompt=None if call is None else call.prompt,
            reply=None if call is None else call.reply,
            input_tokens=0 if call is None else call.input_tokens,
            output_tokens=0 if call is None else call.output_tokens,
            calls=int(call is not None and call.prompt is not None and not call.cached),
            cache_hits=int(call is not None and call.cached),
            cost=None if call is None else call.cost,
            elapsed=elapsed,
            deduction=verdict,
            repeat=q.repeat,
        )

    def tables(self, results: SuiteResults) -> dict[str, Table]:
        """The deductions table: correct, incorrect and missed rates against the SAT oracle."""
        return {"deductions": deductions_table(of_kind(results, self))}

    def difficulty(self, suite: Suite) -> list[str]:
        """Facts entailed per snapshot, and those only complete deduction finds."""
        lines = []
        for key, title in (
            ("entailed", "facts entailed per snapshot (outside the seat's hand):"),
            (
                "beyond_matrix",
                "facts the possibility matrix's rules miss (only complete deduction places them):",
            ),
        ):
            hist: dict[int, int] = {}
            for p in suite.positions:
                hist[int(p.features[key])] = hist.get(int(p.features[key]), 0) + 1
            top = max(hist.values())
            lines.append(title)
            lines.extend(f"  {k:>4} {hist[k]:>5} {histogram_bar(hist[k], top)}" for k in sorted(hist))
        return lines

    def page(self, suite: Suite, pos: Position, answers: list[Answer]) -> dict[str, object]:
        """The seat's own view, the facts it entails, each player's verdict."""
        from ..clue.prompts import render_view, seat_label

        state: Any = pos.state(clue_game(suite.game))
        deck, n = state.deck, state.n
        truth = facts(pos)
        return {
            "index": pos.index,
            "mover": seat_label(pos.mover),
            "ply": pos.ply,
            "facts": len(truth),
            "svg": None,
            "view": render_view(state.view(pos.mover)),
            "moves_title": "Entailed",
            "moves": [
                {
                    "label": f"{deck.name(c)}: {'envelope' if h == n else seat_label(h)}",
                    "value": "",
                    "colour": VALUE_COLOURS["win"],
                }
                for c, h in truth
            ],
            "answers": [
                {
                    "player": player_label(a),
                    "label": f"failure ({a.failure})"
                    if a.failure
                    else f"{(a.deduction or {}).get('claims', 0)} claims",
                    "verdict": ", ".join(
                        f"{k} {(a.deduction or {}).get(k, 0)}" for k in ("correct", "incorrect", "missed")
                    ),
                }
                for a in answers
            ],
        }


@lru_cache(maxsize=64)
def _uses_model(spec: str) -> bool:
    from ..clue.base import clue_player_class

    return clue_player_class(spec)[1].uses_model


DEDUCTION = DeductionKind()
