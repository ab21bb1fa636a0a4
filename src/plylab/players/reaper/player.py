"""The player specs `reaper:`, `cbr:` (the paper's Baseline) and `memento:` (its Original).

One implementation; the variants differ in three class switches and in option defaults:

| spec      | messages | dedup | stratified | reflection | rules |
|-----------|----------|-------|------------|------------|-------|
| memento:  | prose    | no    | no         | off        | off   |
| cbr:      | JSON     | yes   | yes        | off        | off   |
| reaper:   | JSON     | yes   | yes        | on         | on    |

A move: (describe the state) -> retrieve cases and rules -> planner-executor loop -> action,
appended to the game buffer. Learning happens only when the learning protocol lends the player a
writable memory (see `lend_memory`): after each game the buffer is reflected on and written to
memory, and every `rule_period` learning games the rules are re-extracted. With `memory=PATH`
the player plays a trained memory read-only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypedDict

import numpy as np

from ...errors import FailureKind, ParseError
from ...models import GenerateConfig, ResponseCache, get_model
from ...specs import Spec, parse_spec
from ..base import Decision, GameResult, Player, RunContext, Turn, register_player
from ..llm import listed_moves, policy_of
from . import prompts
from .calls import Caller, CallFailed
from .descriptor import describe
from .encoder import get_encoder
from .extractor import extract
from .loop import LoopShape, decide
from .memory import Case, CaseMemory, Update
from .options import BaselineOptions, OriginalOptions, ReaperOptions
from .reflector import label, reflect
from .retrieval import Retriever
from .schemas import Reflection

if TYPE_CHECKING:
    from ...games import Formulation, GameDef

EXTRA_KEY = "reaper"


class LentMemory(TypedDict):
    """A memory a run lends the players of one spec (`RunContext.extra[EXTRA_KEY][spec]`)."""

    memory: str
    learn: bool


def lend_memory(extra: dict[str, object], spec: str, memory: Path, *, learn: bool) -> None:
    """Make players built from `spec` use `memory` (writable and learning when `learn`)."""
    lent = extra.setdefault(EXTRA_KEY, {})
    if not isinstance(lent, dict):
        raise TypeError(f"the run's {EXTRA_KEY!r} rules are not a mapping: {lent!r}")
    lent[str(parse_spec(spec))] = LentMemory(memory=str(memory), learn=learn)


def lent_memory(extra: dict[str, object], spec: str) -> LentMemory | None:
    """The memory lent to players of `spec` (`lend_memory`), if any."""
    lent = extra.get(EXTRA_KEY, {})
    if not isinstance(lent, dict):
        raise TypeError(f"the run's {EXTRA_KEY!r} rules are not a mapping: {lent!r}")
    found: LentMemory | None = lent.get(spec)
    return found


_frozen: dict[str, tuple[tuple[int, int, int], CaseMemory]] = {}


def frozen_memory(path: Path, game: str) -> CaseMemory:
    """A read-only memory, opened once per process while the file is unchanged."""
    resolved = str(path.resolve())
    try:
        st = path.stat()
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    except OSError:
        stamp = (0, 0, 0)
    held = _frozen.get(resolved)
    if held is None or held[0] != stamp:
        _frozen[resolved] = (stamp, CaseMemory.open(path, frozen=True, game=game))
    return _frozen[resolved][1]


@dataclass
class _Move:
    """A buffered move, waiting for the game's end."""

    ply: int
    key: str
    observation: str
    legal: list[str]
    action: str
    intent: str
    reply: str | None = None  # the opponent's answer, filled in at our next move


def encode(texts: list[str]) -> np.ndarray:
    return get_encoder().encode(texts)


@register_player
class ReaperPlayer(Player[ReaperOptions]):
    Options = ReaperOptions
    summary = (
        "REAPER: planner-executor LLM agent with case memory, post-game reflection and rule extraction; "
        "model, memory=PATH, reflection|rules|descriptor=on|off, k, rule_period, <component>_model, "
        "on_failure; paper defaults answer=free, iterations=3 unforced (force_final=on), strata=reward, "
        "rule_cases=0 (all), effort=medium"
    )
    uses_model = True
    structured: ClassVar[bool] = True  # JSON between components (else prose)
    dedup: ClassVar[bool] = True  # cases unique by state-action-reward
    stratified: ClassVar[bool] = True  # half positive, half non-positive retrieval

    def __init__(
        self, spec: Spec, options: ReaperOptions, game: GameDef, seed: int, context: RunContext | None = None
    ) -> None:
        super().__init__(spec, options, game, seed, context)
        o = self.o
        self.policy, self.retries = policy_of(o.on_failure)
        lent = lent_memory(self.context.extra, str(self.spec))
        path = lent["memory"] if lent else o.memory
        self.memory_path = Path(path) if path else None
        self.learning = bool(lent and lent["learn"])
        used = ["planner", "executor"] + ["descriptor"] * o.descriptor
        if self.learning:
            used += ["reflector"] * o.reflection + ["extractor"] * o.rules
        self._own_cache: ResponseCache | None = None
        cache = self.context.cache
        if cache is None and self.context.store_path is not None:
            cache = self._own_cache = ResponseCache.open(self.context.store_path)
        self.caller = Caller(
            {c: get_model(o.model_for(c)) for c in used},
            GenerateConfig(
                temperature=o.temperature,
                max_tokens=o.max_tokens,
                effort=None if o.effort == "unset" else o.effort,
                timeout=o.timeout,
            ),
            cache,
            self.seed,
            self.context.seeding,
            leave_unfinished=o.on_provider_failure == "unfinished",
        )
        self.shape = LoopShape(
            self.structured, self.structured and o.answer == "legal", o.iterations, o.subtasks, o.force_final
        )
        self._memory: CaseMemory | None = None
        self._formulation: Formulation | None = None
        self.buffer: list[_Move] = []
        self._seen = 0  # history length after our last move
        self._seat = 0

    @classmethod
    def memory_hash(cls, options: ReaperOptions, game: GameDef) -> str | None:
        """`sha256:` and the memory's content digest (`CaseMemory.digest`: cases, rules, counters),
        read-only; one line when the file is no memory of `game`. None without `memory=`."""
        if options.memory is None:
            return None
        memory = CaseMemory.open(options.memory, frozen=True, game=game.name)
        try:
            return f"sha256:{memory.digest()}"
        finally:
            memory.close()

    @property
    def o(self) -> ReaperOptions:
        return self.options

    def memory(self) -> CaseMemory | None:
        if self._memory is None and self.memory_path is not None:
            f = self._formulation
            if self.learning:
                self._memory = CaseMemory.open(
                    self.memory_path, frozen=False, game=self.game.name, formulation=f.name if f else None
                )
            else:
                self._memory = frozen_memory(self.memory_path, self.game.name)
        return self._memory

    def close(self) -> None:
        if self._memory is not None and self.learning:
            self._memory.close()
        self._memory = None
        if self._own_cache is not None:
            self._own_cache.close()
            self._own_cache = None

    # playing ----------------------------------------------------------------------------
    async def act(self, turn: Turn) -> Decision:
        f = self._formulation = turn.formulation
        self._seat = turn.seat
        self._note_reply(turn.state.history())
        s = prompts.Situation(
            f.rules(),
            f.seat_name(turn.seat),
            f.render_state(turn.state),
            list(listed_moves(turn, self.context.llm_listing)),
        )
        base, note = f"{turn.job_key}/{turn.ply}", dict[str, object]()
        key = await self._recall(s, base, note)
        action, intent, failure = await self._choose(turn, s, base, note)
        attempts = self.caller.take()
        self._seen = len(turn.state.history()) + 1
        if action is not None:
            self.buffer.append(
                _Move(turn.ply, key, s.observation, s.legal, f.action_label(turn.state, action), intent)
            )
            return Decision(action, attempts, note=note)
        if self.policy == "random":
            note["fallback"] = "random"
            return Decision(self.rng.choice(turn.state.legal_actions()), attempts, failure=failure, note=note)
        return Decision(None, attempts, failure=failure, note=note)

    async def _recall(self, s: prompts.Situation, base: str, note: dict[str, object]) -> str:
        """Fill the situation with retrieved cases and rules; returns the retrieval key."""
        o, key = self.o, s.observation
        if o.descriptor:
            try:
                s.description = key = await describe(
                    self.caller, s.rules_text, s.seat, s.observation, f"{base}/descriptor"
                )
            except CallFailed as exc:
                note["descriptor_failure"] = exc.kind  # fall back to the observation as the key
        memory = self.memory()
        if memory is not None:
            if o.k and len(memory):
                s.cases = Retriever(memory, get_encoder())(key, o.k, stratified=self.stratified, by=o.strata)
                note["retrieved"] = [r.trace() for r in s.cases]
                if memory.index().holds(s.observation):  # D.4.1's retrieval success, per move
                    note["recall"] = any(r.case.observation == s.observation for r in s.cases)
            if o.rules:
                s.learned_rules = memory.rules()
        return key

    async def _choose(
        self, turn: Turn, s: prompts.Situation, base: str, note: dict[str, object]
    ) -> tuple[int | None, str, str | None]:
        """(action, intent, failure) after the decision loop and its retries (each shown the last error)."""
        failure = None
        for n in range(self.retries + 1):
            try:
                outcome = await decide(self.caller, s, f"{base}/{n}", self.shape)
                note["plans"], note["intent"] = outcome.trace, outcome.intent
                try:
                    return turn.formulation.parse_action(turn.state, outcome.answer), outcome.intent, None
                except ParseError as exc:
                    kind: FailureKind = "illegal" if exc.kind == "illegal" else "unparseable"
                    raise self.caller.fail(kind, str(exc)) from None
            except CallFailed as exc:
                failure, s.feedback = exc.kind, exc.message
        return None, "", failure

    def _note_reply(self, history: Sequence[int]) -> None:
        """Label the opponent's moves since our last one (the reflector sees them)."""
        f = self._formulation
        if not self.buffer or f is None or len(history) <= self._seen:
            return
        state, labels = self.game.new_state(), []
        for i, a in enumerate(history):
            if i >= self._seen:  # what this seat saw of each move: under hidden information, not all
                seen = f.seen_label(state, a, self._seat)
                if seen is not None:
                    labels.append(seen)
            state.apply_action(a)
        self.buffer[-1].reply = ", ".join(labels)

    # learning ---------------------------------------------------------------------------
    async def game_over(self, result: GameResult) -> None:
        """Reflect on the buffered game and write its cases (learning runs only)."""
        self._note_reply(result.history)  # the opponent's game-ending move, if it had the last word
        buffer, self.buffer = self.buffer, []
        memory, f = self.memory() if self.learning else None, self._formulation
        if memory is None or f is None:
            return
        o = self.o
        reward = float(result.returns[result.seat])
        reflections: list[Reflection | None] = [None] * len(buffer)
        updates = []
        if o.reflection and buffer:
            failure: str | None = None
            steps = [prompts.Step(m.observation, m.action, m.intent, m.reply) for m in buffer]
            try:
                reflections = await reflect(
                    self.caller,
                    f.rules(),
                    f.seat_name(result.seat),
                    steps,
                    outcome_text(result),
                    f"{self.context.job_key}/reflect",
                    max_tokens=o.update_max_tokens,
                )
            except CallFailed as exc:
                failure = exc.kind
            if failure is None and None in reflections:
                failure = "partial"  # some moves went unjudged: they keep the terminal-reward label
            updates.append(_update("reflect", self.caller, failure))
        cases = [
            Case(
                self.game.name,
                f.name,
                m.key,
                m.observation,
                m.legal,
                m.action,
                m.intent,
                reward,
                label(reward, r),
                r,
                source=self.context.job_key,
                ply=m.ply,
            )
            for m, r in zip(buffer, reflections)
        ]
        memory.add_game(cases, dedup=self.dedup, encode=encode, updates=updates)
        if o.rules and memory.games_since_rules >= o.rule_period:
            await self._extract_rules(memory, f, f"{self.context.job_key}/rules")

    async def consolidate(self, formulation: Formulation, key: str) -> bool:
        """Extract rules from the cases since the last extraction (the end of a learning phase)."""
        memory = self.memory()
        if not (self.learning and self.o.rules and memory is not None and memory.games_since_rules > 0):
            return False
        return await self._extract_rules(memory, formulation, key)

    async def _extract_rules(self, memory: CaseMemory, f: Formulation, key: str) -> bool:
        meta = memory.meta()
        cases = memory.cases(since_game=int(meta.get("rules_at", 0)))
        if not cases:
            return False
        failure, rules = None, []
        try:
            rules = await extract(
                self.caller,
                f.rules(),
                memory.rules(),
                cases,
                key,
                max_rules=self.o.max_rules,
                max_tokens=self.o.update_max_tokens,
                last=self.o.rule_cases or None,
            )
        except CallFailed as exc:
            failure = exc.kind
        memory.set_rules(rules, _update("rules", self.caller, failure))
        return failure is None


def outcome_text(result: GameResult) -> str:
    if result.forfeit_by == result.seat:
        return "you lost by forfeit (one of your moves failed)"
    if result.forfeit_by is not None:
        return "you won because the opponent forfeited"
    mine = result.returns[result.seat]
    theirs = max(r for s, r in enumerate(result.returns) if s != result.seat)
    return "you won" if mine > theirs else "you lost" if mine < theirs else "a draw"


def _update(kind: str, caller: Caller, failure: str | None) -> Update:
    """The update's log entry; a reply cut off at max_tokens is recorded as `truncated`."""
    attempts = caller.take()
    if any(a.truncated for a in attempts):
        failure = "truncated"
    return Update(
        kind, sum(a.input_tokens for a in attempts), sum(a.output_tokens for a in attempts), failure
    )


@register_player
class BaselinePlayer(ReaperPlayer):
    Options = BaselineOptions
    summary = (
        "the paper's Baseline: REAPER's loop with JSON messages, deduplicated cases and stratified "
        "retrieval, no reflection or rules"
    )


@register_player
class OriginalPlayer(ReaperPlayer):
    Options = OriginalOptions
    summary = (
        "the paper's Original: a direct Memento port (prose messages, terminal reward on every move, "
        "no deduplication)"
    )
    structured = False
    dedup = False
    stratified = False
