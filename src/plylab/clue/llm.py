"""`clue-llm`: a language model plays a seat through the model door (`plylab.models`).

Each turn it gets the rules and its observation history in natural language or, with
`matrix=on`, its possibility matrix instead of the history (000 l.138, l.56; `history=on` keeps
the history beside the matrix); it answers in a JSON schema with its action and its deductions.
The reply cap is large enough that no reply of a paper run is cut short (a thinking model's
thinking counts against it); a cut reply is a recorded pass that the Clue report counts. A reply
that is empty, not JSON or not a legal action becomes a pass; the call is recorded either way
(prompt, reply, tokens, failure kind). A provider's failure (retries spent) is not the model's: the
game is left unfinished and the same command plays it again (`on_provider_failure=pass` keeps the
old policy, a recorded pass), as for every other game (003 l.202, issue 19.3).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field

from ..errors import ParseError, ProviderFailure, provider_failure
from ..jsontypes import JSONObject
from ..models import GenerateConfig, Model, get_model
from ..models.call import call, clue_call
from ..players.base import register_player
from ..seeds import CLUE_CELLS
from ..specs import Params
from .base import TRUNCATED, ClueDecision, CluePlayer
from .matrix import PossibilityMatrix
from .prompts import messages, parse_reply, reply_schema
from .view import ClueView

MAX_TOKENS = 16384


class LLMOptions(Params):
    model: str = Field(description="model name: 'local' (embedded Gemma 3 270M) or provider/name")
    matrix: Literal["on", "off"] = "off"
    # The matrix replaces the history (000 l.138); `on` puts the history beside it, `off` drops it.
    history: Literal["on", "off"] | None = None
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    # 16384: the most GPT-4o-mini may return, far above any reply of the study (thinking included).
    max_tokens: int = Field(MAX_TOKENS, ge=16, le=65536)
    # a provider's failure leaves the game unfinished (played again on re-run); `pass` records a pass
    on_provider_failure: Literal["unfinished", "pass"] = "unfinished"


@register_player
class LLMPlayer(CluePlayer[LLMOptions]):
    Options = LLMOptions
    summary = "language model; matrix=on gives it the possibility matrix instead of the history"
    uses_model = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.matrix: PossibilityMatrix | None = None
        self.model: Model | None = None  # the model door's handle, opened on the first turn
        self._schema: JSONObject | None = None

    @classmethod
    def sees_matrix(cls, options: Params) -> bool:
        return getattr(options, "matrix", "off") == "on"

    @classmethod
    def prepare(cls, options: Params) -> None:
        assert isinstance(options, LLMOptions)
        get_model(options.model)

    async def act(self, view: ClueView) -> ClueDecision:
        ready = None
        opts = self.options
        if opts.matrix == "on":
            if self.matrix is None:
                self.matrix = PossibilityMatrix(
                    view.deck, view.num_players, view.hand_sizes, view.me, view.hand
                )
            self.matrix.update(view)
            ready = self.matrix.ready
        history = None if opts.history is None else opts.history == "on"
        cells = str(self.context.extra.get("clue_cells", CLUE_CELLS))  # a stored run's own (harness.store)
        chat = messages(view, self.matrix, history, cells)
        prompt = json.dumps(chat, ensure_ascii=False)
        if self._schema is None:
            self._schema = reply_schema(view.deck, view.num_players)
        if self.model is None:
            self.model = get_model(opts.model)
        config = GenerateConfig(temperature=opts.temperature, max_tokens=opts.max_tokens)
        at = clue_call(self.seed, self.context.job_key, view.turn, view.me, prompt, self.context.seeding)
        attempt = await call(
            self.model,
            chat,
            schema=self._schema,
            config=config,
            cache=self.context.cache,
            key=at.key,
            seed=at.seed,
            prompt=prompt,
        )
        if attempt.failure is not None:
            if provider_failure(attempt.failure) and opts.on_provider_failure == "unfinished":
                raise ProviderFailure(attempt.cause or attempt.failure, attempt.error or "")
            return ClueDecision("pass", None, None, attempt, ready)
        if attempt.repaired:  # the turn table has no flag column: the error column says what was replaced
            attempt.error = f"reply repaired at the model door: {attempt.repaired}"
        if attempt.truncated:  # the turn row says so, and the Clue report counts it
            attempt.error = f"{attempt.error}; {TRUNCATED}" if attempt.error else TRUNCATED
        try:
            parsed = parse_reply(attempt.reply or "", view.deck, view.num_players)
        except ParseError as exc:
            stop = f" (stop reason: max_tokens); {TRUNCATED}" if attempt.truncated else ""
            attempt.failure, attempt.error = exc.kind, f"{exc}{stop}"
            return ClueDecision("pass", None, None, attempt, ready)
        return ClueDecision(parsed.kind, parsed.cards, parsed.deductions, attempt, ready)
