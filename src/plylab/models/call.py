"""One model call as a player makes it: ask, record the attempt, classify a failure.

The LLM player, every REAPER component and the Clue player call the model through `call`, so
the cache key, the per-call seed and what an attempt records are decided once. Each caller
parses its own reply (`plylab.models.jsontext.parse_json` is the shared safe JSON parser).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict, cast

from ..errors import FailureKind, model_failure
from ..jsontypes import JSONObject
from ..seeds import SEEDING, call_seed

if TYPE_CHECKING:  # importing this module stays light: no model door (or pydantic) until a call
    from .cache import ReplyCache
    from .config import GenerateConfig
    from .model import Model
    from .reply import Reply

__all__ = ["SEEDING", "Attempt", "CallId", "call", "call_seed", "clue_call", "component_call", "move_call"]


@dataclass(frozen=True)
class CallId:
    """Where a call stands in a run: its response-cache key and its sampling seed, made here for
    every caller so a resumed run asks the cache and the model exactly as it did."""

    key: str
    seed: int


def move_call(seed: int, job_key: str, ply: int, n: int) -> CallId:
    """The LLM player's `n`-th try at ply `ply` of a game (one rule since the first stored run)."""
    return CallId(f"{job_key}/{ply}/{n}", call_seed(seed, ply, n))


def component_call(seed: int, key: str, seeding: int = SEEDING) -> CallId:
    """A REAPER component's call at its place `key` (e.g. `<job>/<ply>/0/planner/1`); a run stored
    before the shared rule (`seeding` 1) keeps REAPER's old seed."""
    return CallId(key, call_seed(seed, key) if seeding >= SEEDING else reaper_seed_v1(seed, key))


def clue_call(seed: int, job_key: str, turn: int, seat: int, prompt: str, seeding: int = SEEDING) -> CallId:
    """A Clue player's call on its turn: the key names the prompt's digest (a changed prompt is a new
    call); a run stored before the shared rule (`seeding` 1) used the seat's seed for every turn."""
    digest = hashlib.sha256(prompt.encode()).hexdigest()[:16]
    key = f"clue:{job_key}:turn{turn}:seat{seat}:{digest}"
    return CallId(key, call_seed(seed, turn, 0) if seeding >= SEEDING else seed % 2**31)


def reaper_seed_v1(seed: int, key: str) -> int:
    """REAPER's seed before the shared rule (`derive_seed(seed, key)`). Kept ONLY so that runs
    stored with it resume from the cache with the seeds their calls were made with."""
    digest = hashlib.sha256(f"{seed}|{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


class AttemptRecord(TypedDict, total=False):
    """An `Attempt` as a move stores it (`Attempt.to_dict`): its fields that say something."""

    prompt: str
    reply: str
    reasoning: str
    failure: FailureKind
    error: str
    input_tokens: int
    output_tokens: int
    reasoning_tokens: int
    cost: float
    cached: bool
    latency: float
    truncated: bool
    repaired: str
    seed: int
    cause: str


@dataclass
class Attempt:
    """One try at producing a move (a model call, a human entry), kept even when it failed."""

    prompt: str | None = None
    reply: str | None = None
    reasoning: str | None = None
    failure: FailureKind | None = None
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None
    cached: bool = False
    latency: float = 0.0
    truncated: bool = False  # the reply was cut off at max_tokens
    # what the model door replaced in an unsafe reply (lone surrogates, out-of-range usage, a quoted key)
    repaired: str | None = None
    seed: int | None = None  # the sampling seed the call was made with
    cause: str | None = None  # the model door's error kind where `failure` folds it (rate_limit, unreachable)

    def record(self, reply: Reply) -> None:
        """Copy a model reply (`plylab.models.Reply`) onto this attempt: text, trace and usage."""
        self.reply, self.reasoning = reply.text, reply.reasoning
        self.input_tokens = reply.usage.input_tokens
        self.output_tokens = reply.usage.output_tokens
        self.reasoning_tokens = reply.usage.reasoning_tokens
        self.cost = reply.usage.cost
        self.cached = reply.cached
        self.latency = reply.latency
        self.truncated = reply.stop_reason == "max_tokens"
        self.repaired = "; ".join(reply.flags) or None

    def to_dict(self) -> AttemptRecord:
        # AttemptRecord names every field of Attempt (tests/models/test_call.py holds them equal)
        return cast(AttemptRecord, {k: v for k, v in self.__dict__.items() if v not in (None, 0, 0.0, False)})


async def call(
    model: Model,
    messages: list[dict[str, str]],
    *,
    schema: JSONObject | None,
    config: GenerateConfig,
    cache: ReplyCache | None,
    key: str,
    seed: int,
    prompt: str | None = None,
) -> Attempt:
    """Ask `model` once with `seed` and the response-cache `key`; the attempt holds the reply and
    its usage, or the failure kind and message (a model error never escapes). `prompt` is what the
    attempt records as asked (default: the last message)."""
    from .failures import ModelError  # here: importing this module must stay light (see above)

    attempt = Attempt(prompt=messages[-1]["content"] if prompt is None else prompt, seed=seed)
    try:
        reply = await model.generate(
            messages,
            schema=schema,
            config=config.model_copy(update={"seed": seed}),
            cache=cache,
            cache_key=key,
        )
    except ModelError as err:
        if err.reply is not None:
            attempt.record(err.reply)
        attempt.failure, attempt.error = model_failure(err.kind), err.message
        attempt.cause = None if attempt.failure == err.kind else err.kind
        return attempt
    attempt.record(reply)
    return attempt
