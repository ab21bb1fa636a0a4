"""Model calls for REAPER's components: one model per component, every call cached and recorded.

Each call has a cache key built from the game job, the ply and the component's place in the
decision loop (e.g. `<job>/<ply>/0/planner/1`), so a resumed game or learning run replays its
calls from the response cache; the sampling seed derives from the player's seed and the same key
(`plylab.models.call.component_call`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import FailureKind, ProviderFailure, provider_failure
from ...jsontypes import JSONObject
from ...models import GenerateConfig, Model, ReplyCache
from ...models.call import SEEDING, Attempt, call, component_call


class CallFailed(Exception):
    """A component produced no usable message: `kind` is the failure a move records."""

    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind: FailureKind = kind
        self.message = message


@dataclass
class Caller:
    """Asks a component's model and appends an Attempt (tokens, reply, failure) per call."""

    models: dict[str, Model]
    config: GenerateConfig
    cache: ReplyCache | None
    seed: int
    seeding: int = SEEDING  # the run's seed rule; 1: REAPER's old seed, for runs stored before it
    attempts: list[Attempt] = field(default_factory=list)
    leave_unfinished: bool = True  # a provider's failure leaves the game unfinished (not the move's failure)

    async def ask(
        self,
        component: str,
        messages: list[dict[str, str]],
        schema: JSONObject | None,
        key: str,
        *,
        max_tokens: int | None = None,
    ) -> str:
        update: dict[str, int] = {} if max_tokens is None else {"max_tokens": max_tokens}
        at = component_call(self.seed, key, self.seeding)
        attempt = await call(
            self.models[component],
            messages,
            schema=schema,
            config=self.config.model_copy(update=update),
            cache=self.cache,
            key=at.key,
            seed=at.seed,
        )
        self.attempts.append(attempt)
        if attempt.failure is not None:
            if self.leave_unfinished and provider_failure(attempt.failure):
                raise ProviderFailure(attempt.cause or attempt.failure, f"{component}: {attempt.error}")
            raise CallFailed(attempt.failure, f"{component}: {attempt.error}")
        return attempt.reply or ""

    def take(self) -> list[Attempt]:
        """The attempts since the last take (one move's, or one update's)."""
        out, self.attempts = self.attempts, []
        return out

    def fail(self, kind: FailureKind, message: str) -> CallFailed:
        """Mark the last attempt as failed (its message did not parse) and return the error to raise."""
        if self.attempts:
            self.attempts[-1].failure, self.attempts[-1].error = kind, message
        return CallFailed(kind, message)
