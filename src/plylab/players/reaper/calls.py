"""Model calls for REAPER's components: one model per component, every call cached and recorded.

Each call has a cache key built from the game job, the ply and the component's place in the
decision loop (e.g. `<job>/<ply>/0/planner/1`), so a resumed game or learning run replays its
calls from the response cache; the sampling seed derives from the same key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...errors import PROVIDER_FAILURES, FailureKind, ProviderFailure, model_failure
from ...models import GenerateConfig, Model, ModelError, ResponseCache
from ..base import Attempt


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
    cache: ResponseCache | None
    seed: int
    attempts: list[Attempt] = field(default_factory=list)
    leave_unfinished: bool = True  # a provider's failure leaves the game unfinished (not the move's failure)

    async def ask(
        self,
        component: str,
        messages: list[dict[str, str]],
        schema: dict[str, Any] | None,
        key: str,
        *,
        max_tokens: int | None = None,
    ) -> str:
        from ...harness.plan import derive_seed  # lazy: the harness imports the players

        update: dict[str, Any] = {"seed": derive_seed(self.seed, key)}
        if max_tokens is not None:
            update["max_tokens"] = max_tokens
        attempt = Attempt(prompt=messages[-1]["content"])
        self.attempts.append(attempt)
        try:
            reply = await self.models[component].generate(
                messages,
                schema=schema,
                config=self.config.model_copy(update=update),
                cache=self.cache,
                cache_key=key,
            )
        except ModelError as err:
            if err.reply is not None:
                attempt.record(err.reply)
            failure = model_failure(err.kind)
            attempt.failure, attempt.error = failure, err.message
            if self.leave_unfinished and err.kind in PROVIDER_FAILURES:
                raise ProviderFailure(err.kind, f"{component}: {err.message}") from None
            raise CallFailed(failure, f"{component}: {err.message}") from None
        attempt.record(reply)
        return reply.text

    def take(self) -> list[Attempt]:
        """The attempts since the last take (one move's, or one update's)."""
        out, self.attempts = self.attempts, []
        return out

    def fail(self, kind: FailureKind, message: str) -> CallFailed:
        """Mark the last attempt as failed (its message did not parse) and return the error to raise."""
        if self.attempts:
            self.attempts[-1].failure, self.attempts[-1].error = kind, message
        return CallFailed(kind, message)
