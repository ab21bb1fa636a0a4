"""The one door to language models: `get_model(name)` -> `Model.generate(messages) -> Reply`.

Backed by `inspect_ai.model`, which brings the providers (OpenAI, Anthropic, Google, vLLM,
Ollama, any OpenAI-compatible server) and the embedded `local` model (see `local.py`).
Retries, time-outs and the concurrency cap are set here, once, on inspect: provider SDKs' own
retries are switched off so they never multiply, and `timeout` bounds the whole call, every
retry and back-off included. API keys are read by the providers from the environment; plylab
never holds or stores them, and scrubs them from whatever a server sends back (`secrets`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import math
import os
import re
import time
import warnings
from collections.abc import Callable, Coroutine, Iterator
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import UserError
from ..jsontypes import JSONObject
from ..secrets import install_log_scrubber, register_url, scrub, scrub_spec
from .cache import ReplyCache, make_key, request_record
from .config import GenerateConfig
from .failures import ModelError
from .reply import Reply, Usage
from .wire import STATUSES, UnsafeReply, cap_replies

if TYPE_CHECKING:  # inspect_ai loads on the first `get_model`, not when this module is imported
    from inspect_ai.model import ChatMessage, ModelAPI, ModelOutput
    from inspect_ai.model import GenerateConfig as InspectConfig
    from inspect_ai.model import Model as InspectModel

T = TypeVar("T")

LOCAL = "local"
DEFAULT_MAX_CONNECTIONS = 32  # per hosted model; the local model always takes 1
DEFAULT_BACKOFF = 2.0  # seconds before the first retry; doubles, with jitter, up to a minute

LOCAL_DEFAULTS = GenerateConfig(temperature=0.0, max_tokens=256, seed=0, timeout=600, max_retries=1)
# A reasoning model at high effort can generate 15k tokens for one move (003 Tables 12-13): at a
# slow 30 tokens/s that is ~500 s, so one attempt gets 600 s before it is abandoned and retried, and
# the whole move (attempts, resets, back-off) 1800 s. Retries: 4 after the first attempt.
REMOTE_ATTEMPT_TIMEOUT = 600.0
REMOTE_DEFAULTS = GenerateConfig(timeout=1800, attempt_timeout=REMOTE_ATTEMPT_TIMEOUT, max_retries=4)

# Providers that hand extra model args to an OpenAI/Anthropic SDK client, which would otherwise
# retry on its own underneath inspect (others get the client's attribute reset after creation).
_SDK_RETRY_ARG = {"openai", "openai-api", "anthropic"}
KNOWN_PROVIDERS = ("openai", "anthropic", "google", "vllm", "ollama", "openai-api/<service>")

_models: dict[str, Model] = {}

# Ways to ask for JSON matching a schema, best first: what a fallback is recorded as.
SCHEMA_FORMATS = {
    "json_schema": "json_schema (strict structured output)",
    "json_object": "json_object with the schema",
    "prompt": "the schema in the prompt only",
}

CallGate = Callable[["Model"], AbstractAsyncContextManager[object]]
"""Given a model, an async context manager that `Model.generate` holds around each real call."""

_call_gate: CallGate | None = None


def set_call_gate(gate: CallGate | None) -> CallGate | None:
    """Route every real provider call of this process through `gate(model)`; returns the previous gate.

    `gate(model)` is an async context manager entered just before the provider is asked and left
    when it answers or fails; a reply from the response cache never enters it. The Ray backend uses
    this to hold each model's concurrency cap across a whole cluster. `None` removes the gate.
    """
    global _call_gate
    previous, _call_gate = _call_gate, gate
    return previous


class Model:
    """A language model by name. Safe to share between concurrent games in one event loop."""

    def __init__(
        self,
        name: str,
        inspect_model: InspectModel | None,
        *,
        identity: str,
        defaults: GenerateConfig,
        max_connections: int,
        local: bool | None = None,
        in_eval: bool = False,
    ) -> None:
        self.name = name
        self._local = name == LOCAL if local is None else local
        # inspect's model under evaluation (`under_evaluation`): its calls stay in the sample's transcript
        self.in_eval = in_eval
        self.identity = identity  # what the response cache keys on: name, server, weights
        self.defaults = defaults
        self.max_connections = max_connections
        self._named_only = inspect_model  # None: named by a dry run, never built (`naming_only`)
        # How a schema is sent: json_schema (strict structured output) until the server refuses it
        # once, then json_object with the schema, then the schema in the prompt (see SCHEMA_FORMATS).
        self.schema_format = "json_schema"

    @property
    def is_local(self) -> bool:
        return self._local

    @property
    def _inspect(self) -> InspectModel:
        """inspect's model; a model a dry run named (`naming_only`) has none and is never asked."""
        if self._named_only is None:
            raise UserError(f"model '{self.name}' was only named by a dry run, which asks no model")
        return self._named_only

    @classmethod
    def under_evaluation(cls, inspect_model: InspectModel) -> Model:
        """A model of the running inspect eval as a plylab model: the model under evaluation
        (`inspect_ai.model.get_model()` in a task's solver) or a role's (`get_model(role=...)`, e.g.
        the `opponent` of `plylab/game`). Its calls go through this door (schemas, failures, replies
        as every player reads them) and are recorded by inspect in the sample's transcript, one
        ModelEvent per call (a role's carrying the role). The eval's own options (retries,
        connections, `--batch`) stay inspect's."""
        from . import local
        from .scrubbed import scrub_recorded

        install_log_scrubber()
        scrub_recorded(inspect_model.api)  # what inspect logs of each call: never a key it echoes
        name = str(inspect_model)
        is_local = isinstance(inspect_model.api, local.LocalModelAPI)
        return cls(
            name,
            inspect_model,
            identity=name,
            defaults=LOCAL_DEFAULTS if is_local else GenerateConfig(),
            max_connections=1 if is_local else DEFAULT_MAX_CONNECTIONS,
            local=is_local,
            in_eval=True,
        )

    def __repr__(self) -> str:
        return f"Model({self.name!r})"

    async def generate(
        self,
        messages: list[dict[str, str]],
        *,
        schema: JSONObject | None = None,
        config: GenerateConfig | None = None,
        cache_key: str | None = None,
        cache: ReplyCache | None = None,
    ) -> Reply:
        """One reply to `messages` ([{role, content}]), constrained to `schema` when given.

        With a `cache`, a reply already stored under the same request and `cache_key` comes back
        with `cached=True` and no call is made; a new reply is stored before it is returned.
        `config.timeout` bounds the whole call: every attempt, retry and back-off together.
        Raises ModelError (kind timeout | rate_limit | provider_error | empty | unreachable |
        connection | bad_reply); a cached reply that cannot be read back is asked again.
        """
        cfg = self.defaults.merged(config)
        request = request_record(self.identity, messages, schema, cfg, cache_key)
        key = make_key(request) if cache is not None else None
        if cache is not None and key is not None:
            hit = cache.get(key)  # None for a stored reply that cannot be used: asked again
            if hit is not None:
                return _checked(hit)
        start = time.perf_counter()  # waiting for a permit counts, as it does for inspect's own cap
        gate = _call_gate
        deadline = asyncio.timeout(cfg.timeout)  # the whole call: attempts, retries, back-off, waiting
        fmt = None if schema is None else self.schema_format
        statuses: list[int] = []
        seen = STATUSES.set(statuses)  # what each attempt got, for a call its deadline ends
        try:
            async with deadline, gate(self) if gate is not None else nullcontext():
                while True:
                    try:
                        asked = self._inspect.generate(
                            _chat_messages(_with_schema(messages, schema) if fmt == "prompt" else messages),
                            config=self._inspect_config(cfg, schema, fmt),
                        )
                        # in an eval the sample's transcript records the call; elsewhere a throwaway one
                        output = await (asked if self.in_eval else _isolated(asked))
                        break
                    except Exception as exc:
                        if fmt is None or fmt == "prompt" or not _rejects_format(exc):
                            raise
                        fmt = self._fall_back(fmt)
        except TimeoutError as exc:
            if not deadline.expired():
                raise classify(exc) from exc
            if statuses and statuses[-1] >= 400:  # the server answered, with an error, until the deadline
                raise ModelError(
                    "rate_limit" if statuses[-1] == 429 else "provider_error",
                    f"HTTP {statuses[-1]} on {len(statuses)} attempt(s), retried until timeout={cfg.timeout:g} s",
                ) from None
            raise ModelError(
                "timeout", f"no reply within timeout={cfg.timeout:g} s (all attempts together)"
            ) from None
        except Exception as exc:
            raise classify(exc) from exc
        finally:
            STATUSES.reset(seen)
        elapsed = time.perf_counter() - start
        if cfg.timeout and elapsed > cfg.timeout:  # read in time, then parsed past it: late all the same
            raise ModelError(
                "timeout",
                f"the reply took {elapsed:.1f} s, past timeout={cfg.timeout:g} s (all attempts together)",
            )
        if output.error:
            raise ModelError("provider_error", _one_line(output.error))
        reply = _reply(output, elapsed)
        if fmt not in (None, "json_schema"):  # the run records how the schema was sent
            why = f"response_format: {SCHEMA_FORMATS[fmt]} (the server refused json_schema)"
            reply = reply.model_copy(update={"flags": (*reply.flags, why)})
        if cache is not None and key is not None:
            cache.put(key, request, reply)
        return _checked(reply)

    def _fall_back(self, fmt: str) -> str:
        """The next structured-output form after the server refused `fmt`; kept for later calls."""
        order = list(SCHEMA_FORMATS)
        nxt = order[order.index(fmt) + 1]
        if nxt == "json_object" and not _openai_like(self._inspect.api):
            nxt = "prompt"  # json_object with a schema is an OpenAI-compatible server's extension
        self.schema_format = nxt
        return nxt

    def _inspect_config(
        self, cfg: GenerateConfig, schema: JSONObject | None, fmt: str | None = None
    ) -> InspectConfig:
        from inspect_ai.model import GenerateConfig as InspectConfig
        from inspect_ai.model import ResponseSchema
        from inspect_ai.util import JSONSchema

        common = InspectConfig(
            temperature=cfg.temperature,
            max_tokens=cfg.max_tokens,
            seed=cfg.seed,
            reasoning_effort=None if self.is_local else cfg.effort,
            reasoning_summary=None if self.is_local else cfg.reasoning_summary,
            response_schema=None
            if schema is None or fmt not in (None, "json_schema")
            else ResponseSchema(name="move", json_schema=JSONSchema.model_validate(schema), strict=True),
            extra_body={"response_format": {"type": "json_object", "schema": schema}}
            if fmt == "json_object"
            else None,
            batch=cfg.batch,
        )
        if self.in_eval:  # the eval's options (retries, time-outs, connections, batch) are inspect's
            return common
        return common.merge(
            InspectConfig(
                max_retries=cfg.max_retries,
                attempt_timeout=_attempt_timeout(cfg),
                max_connections=self.max_connections,
                adaptive_connections=False,
            )
        )


def get_model(
    name: str = LOCAL,
    *,
    base_url: str | None = None,
    max_connections: int | None = None,
    backoff: float | None = None,
    defaults: GenerateConfig | None = None,
    check: bool = True,
    role: str | None = None,
    **model_args: Any,  # the inspect provider's own options, handed on as they are
) -> Model:
    """The model called `name` (one instance per name and options per process).

    `name` is `local` (the embedded Gemma 3 270M) or an inspect model name: `openai/gpt-5-mini`,
    `anthropic/...`, `google/...`, `vllm/...`, `ollama/...`, `openai-api/<service>/<model>` (with
    `base_url`, or `<SERVICE>_BASE_URL` in the environment). With `check`, a hosted model's server
    is asked one cheap request first, so a wrong URL or key is one clear UserError up front.
    `defaults` overrides the model's generation defaults (e.g. `max_retries`, `timeout`); `backoff`
    is the first retry's wait in seconds. `model_args` go to the inspect provider (e.g.
    `responses_api=False`). Inside `bound_model(m)` (an inspect task's solver), `m.name` is `m`;
    with `role`, the model bound for that inspect model role (`bound_model(m, role=...)`), which
    only an inspect task binds.
    """
    bound = (_bound.get() or {}).get((name, role))
    if bound is not None:
        return bound
    if role is not None:
        raise UserError(
            f"role={role} names an inspect model role, which only an inspect task gives a model "
            f"(inspect eval plylab/game -T opponent=llm --model-role {role}=<model>); leave role out"
        )
    if "api_key" in model_args:
        raise UserError(
            "API keys are read from the environment only (e.g. OPENAI_API_KEY), never passed as options"
        )
    if _naming.get() and name.strip() != LOCAL:
        return _named(name, base_url, max_connections)
    register_url(base_url)  # a key written into base_url is scrubbed like an env key
    install_log_scrubber()  # and nothing logged (by inspect, httpx, a provider SDK) carries a key
    # a base URL from the environment is part of the model: a process that changes it gets a new one
    env_url = os.environ.get(_base_url_var(name), "") if base_url is None else ""
    memo = repr((name, base_url, env_url, max_connections, backoff, defaults, sorted(model_args.items())))
    model = _models.get(memo)
    if model is None:
        model = _build(
            name, base_url=base_url, max_connections=max_connections, backoff=backoff, **model_args
        )
        model.defaults = model.defaults.merged(defaults)
        if check and not model.is_local:
            from .probe import check_reachable

            check_reachable(model.name, model._inspect.api)
        _models[memo] = model
    return model


_bound: contextvars.ContextVar[dict[tuple[str, str | None], Model] | None] = contextvars.ContextVar(
    "plylab_bound_models", default=None
)


@contextlib.contextmanager
def bound_model(model: Model, role: str | None = None) -> Iterator[None]:
    """Within the block (and the tasks it starts), `get_model(model.name, role=role)` is `model`: an
    inspect task's solver binds the model under evaluation (no role), so the `llm` player of the game
    it plays calls inspect's model through `plylab.models.call` as it calls any other, and an inspect
    model role's model under that role (`llm:...,role=opponent`), apart from the first even where
    both are one model."""
    token = _bound.set({**(_bound.get() or {}), (model.name, role): model})
    try:
        yield
    finally:
        _bound.reset(token)


_naming: contextvars.ContextVar[bool] = contextvars.ContextVar("plylab_naming_only", default=False)


@contextlib.contextmanager
def naming_only() -> Iterator[None]:
    """A dry run: within the block, `get_model` of a hosted model checks its name and builds nothing,
    so it needs no API key and asks no server (building reads the key, and `check` probes the
    server); what it returns refuses to generate. The local model is built as ever (offline)."""
    token = _naming.set(True)
    try:
        yield
    finally:
        _naming.reset(token)


def _named(name: str, base_url: str | None, max_connections: int | None) -> Model:
    """A hosted model as a dry run knows it: its name's form and provider checked, nothing built."""
    name = name.strip()
    if "/" not in name:
        raise UserError(
            f"unknown model '{name}'; expected 'local' or '<provider>/<model>' with a provider among: "
            f"{', '.join(KNOWN_PROVIDERS)} (e.g. openai/gpt-5-mini)"
        )
    if not _known_provider(provider_of(name)):
        raise UserError(
            f"cannot use model '{name}': unknown provider '{provider_of(name)}'; "
            f"accepted: {', '.join(KNOWN_PROVIDERS)}"
        )
    identity = name if base_url is None else f"{name}@{scrub_spec(base_url)}"
    connections = max_connections or DEFAULT_MAX_CONNECTIONS
    return Model(name, None, identity=identity, defaults=REMOTE_DEFAULTS, max_connections=connections)


def _known_provider(provider: str) -> bool:
    """Is `provider` one of inspect's model APIs (its registry, read without building one)?"""
    import inspect_ai.model._providers.providers  # noqa: F401 - where the providers register
    from inspect_ai._util.registry import registry_lookup

    return registry_lookup("modelapi", provider) is not None


def provider_of(name: str) -> str:
    return name.split("/", 1)[0]


def _base_url_var(name: str) -> str:
    """The variable inspect reads a provider's server from: `<SERVICE>_BASE_URL` for
    `openai-api/<service>/...`, else `<PROVIDER>_BASE_URL`."""
    parts = name.split("/")
    service = parts[1] if parts[0] == "openai-api" and len(parts) > 2 else parts[0]
    return f"{service.upper().replace('-', '_')}_BASE_URL"


def _build(
    name: str, *, base_url: str | None, max_connections: int | None, backoff: float | None, **model_args: Any
) -> Model:
    from inspect_ai.model import GenerateConfig as InspectConfig
    from inspect_ai.model import get_model as inspect_get_model
    from tenacity import wait_exponential_jitter

    from . import local
    from .scrubbed import scrub_recorded

    name = name.strip()
    if name == LOCAL:
        inspect_name = f"{local.PROVIDER}/{local.MODEL_NAME}"
        from .weights import expected_sha256

        identity = f"{LOCAL}/{local.MODEL_NAME}@{expected_sha256()[:16]}"
        defaults, connections = LOCAL_DEFAULTS, 1
    else:
        if "/" not in name:
            raise UserError(
                f"unknown model '{name}'; expected 'local' or '<provider>/<model>' with a provider among: "
                f"{', '.join(KNOWN_PROVIDERS)} (e.g. openai/gpt-5-mini)"
            )
        inspect_name = name
        # the identity keys the cache and is stored with each reply: never a key from base_url
        identity = name if base_url is None else f"{name}@{scrub_spec(base_url)}"
        defaults, connections = REMOTE_DEFAULTS, max_connections or DEFAULT_MAX_CONNECTIONS
        if provider_of(name) in _SDK_RETRY_ARG:
            model_args.setdefault("max_retries", 0)  # inspect retries; the SDK must not retry underneath
    try:
        inspect_model = inspect_get_model(
            inspect_name,
            config=InspectConfig(max_connections=connections, adaptive_connections=False),
            base_url=base_url,
            memoize=False,
            **model_args,
        )
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001 - unknown provider, missing key, bad option: one line
        raise UserError(f"cannot use model '{name}': {_construction_error(exc)}") from None
    client = getattr(inspect_model.api, "client", None)
    if client is not None and isinstance(getattr(client, "max_retries", None), int):
        client.max_retries = 0  # e.g. ollama, vllm: their constructors take no SDK options
    cap_replies(inspect_model.api)  # a reply beyond MAX_REPLY_BYTES is refused as it streams in
    scrub_recorded(inspect_model.api)  # what inspect records of a call: never a key a server echoes
    should_retry = inspect_model.api.should_retry
    # a server that refuses our response_format says so at once and one that sent an unusable reply
    # would send it again: neither is retried; a reset connection is retried with back-off (up to
    # max_retries) for every provider, since a long reasoning call is the one most likely to lose it
    inspect_model.api.should_retry = lambda ex: (  # type: ignore[method-assign]
        False
        if _rejects_format(ex) or _unsafe(ex) is not None
        else True
        if _link_broken(ex)
        else should_retry(ex)
    )
    wait = backoff if backoff is not None else DEFAULT_BACKOFF
    # inspect asks the provider for its backoff; ours is the one schedule for every provider
    inspect_model.api.retry_wait = lambda: wait_exponential_jitter(initial=wait, max=60, jitter=wait)  # type: ignore[method-assign]
    return Model(name, inspect_model, identity=identity, defaults=defaults, max_connections=connections)


def _attempt_timeout(cfg: GenerateConfig) -> int | None:
    """Whole seconds one attempt may take: `attempt_timeout`, never more than the whole call's
    `timeout` (an attempt cut by the deadline is not retried: the deadline is spent)."""
    limits = [t for t in (cfg.attempt_timeout, cfg.timeout) if t]
    return math.ceil(min(limits)) if limits else None


def _isolated(call: Coroutine[object, None, T]) -> asyncio.Task[T]:
    """Run an inspect call in its own context with a throwaway transcript.

    Outside an eval, inspect appends every call (input, output, request) to one transcript per
    context and never lets go; over a long run that is an unbounded leak. Cancelling the
    caller cancels the task.
    """
    context = contextvars.copy_context()
    fresh = _fresh_transcript()
    if fresh is not None:
        context.run(fresh)
    return asyncio.get_running_loop().create_task(call, context=context)


@functools.cache
def _fresh_transcript() -> Callable[[], None] | None:
    """inspect's private hook that starts a new transcript, or None when a later inspect moved it:
    correctness is unaffected, only memory, so it warns once and carries on."""
    try:
        from inspect_ai.log._transcript import Transcript, init_transcript
    except ImportError as exc:
        warnings.warn(
            f"plylab: inspect_ai's private transcript API moved ({exc}); model calls will keep their "
            "transcripts in memory for the whole run",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    return lambda: init_transcript(Transcript())


def _construction_error(exc: Exception) -> str:
    text = scrub(_one_line(str(exc)))
    m = re.search(r"Model API (\S+) of model .* not recognized", text)
    if m:
        return f"unknown provider '{m.group(1)}'; accepted: {', '.join(KNOWN_PROVIDERS)}"
    m = re.search(r"No (.+) defined in the environment", text)
    if m and "BASE_URL" in m.group(1):
        return f"no server address: give base_url, or set {m.group(1)} in the environment"
    if m:
        return f"no API key: set {m.group(1)} in the environment"
    return text


def _one_line(text: str) -> str:
    # rich markup in inspect's messages, not the mark a scrubbed credential left (`secrets.REDACTED`)
    text = re.sub(r"\[/?(?!redacted\])[a-z ]+\]", "", text)
    text = re.sub(r"^ERROR:\s*", "", text.strip())
    return re.sub(r"\s+", " ", text)[:500]


def _rejects_format(exc: BaseException) -> bool:
    """Did the server refuse the request for its response_format (not for anything else)?

    llama-cpp-python's server answers json_schema with HTTP 500 naming `response_format`; others
    use 400 or 422. Only a status error whose message names the field counts.
    """
    for e in _chain(exc):
        status = getattr(e, "status_code", None)
        if isinstance(status, int) and status in (400, 422, 500, 501):
            text = (
                str(getattr(e, "message", "") or "") + " " + str(getattr(e, "body", "") or "") + " " + str(e)
            )
            if re.search(r"response_format|json_schema|json_object", text, re.IGNORECASE):
                return True
    return False


def _unsafe(exc: BaseException) -> UnsafeReply | None:
    """The UnsafeReply in `exc`'s cause chain (the SDK wraps it as a connection error), if any."""
    return next((e for e in _chain(exc) if isinstance(e, UnsafeReply)), None)


def _openai_like(api: ModelAPI) -> bool:
    return hasattr(getattr(api, "client", None), "chat")


def _with_schema(messages: list[dict[str, str]], schema: JSONObject | None) -> list[dict[str, str]]:
    """The messages with the schema spelled out in the last user turn (the last fallback)."""
    import json

    out = [dict(m) for m in messages]
    for m in reversed(out):
        if m.get("role") == "user":
            m["content"] = (
                f"{m['content']}\n\nReply with one JSON object, and nothing else, that matches this JSON "
                f"schema:\n{json.dumps(schema, ensure_ascii=False)}"
            )
            break
    return out


def _chat_messages(messages: list[dict[str, str]]) -> list[ChatMessage]:
    """inspect's messages; a user message's `image` (a data URI: the llm player's `view=image`)
    goes as a ContentImage before its text, which multimodal providers send as an image part."""
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageUser,
        ContentImage,
        ContentText,
    )

    kinds: dict[str, type[ChatMessageSystem | ChatMessageUser | ChatMessageAssistant]] = {
        "system": ChatMessageSystem,
        "user": ChatMessageUser,
        "assistant": ChatMessageAssistant,
    }
    out: list[ChatMessage] = []
    for m in messages:
        cls = kinds.get(m.get("role", ""))
        if cls is None:
            raise ValueError(f"message role must be system, user or assistant, not {m.get('role')!r}")
        if m.get("image") and cls is ChatMessageUser:
            out.append(
                ChatMessageUser(content=[ContentImage(image=m["image"]), ContentText(text=m["content"])])
            )
            continue
        out.append(cls(content=m["content"]))
    return out


def generated_tokens(output_tokens: int, reasoning_tokens: int | None) -> int:
    """Every token the model generated, reasoning included (003 l.174, l.324: tokens per move count
    reasoning). OpenAI, Anthropic and (through inspect) Google count reasoning inside output tokens,
    reasoning being a subset; a server whose reasoning exceeds its output reports it apart, so it
    is added (tests/models/test_reasoning_tokens.py keeps each provider's shape so)."""
    reasoning = reasoning_tokens or 0
    return output_tokens + reasoning if reasoning > output_tokens else output_tokens


def _reply(output: ModelOutput, latency: float) -> Reply:
    from inspect_ai.model import ContentReasoning

    from .scrubbed import redacted_flags

    reasoning = []
    if output.choices:
        content = output.message.content
        for part in content if isinstance(content, list) else []:
            if isinstance(part, ContentReasoning):
                text = part.summary if part.redacted else (part.reasoning or part.summary)
                if text:
                    reasoning.append(text)
    u = output.usage
    usage = Usage()
    if u is not None:
        usage = Usage(
            input_tokens=u.input_tokens
            + (u.input_tokens_cache_read or 0)
            + (u.input_tokens_cache_write or 0),
            output_tokens=generated_tokens(u.output_tokens, u.reasoning_tokens),
            reasoning_tokens=u.reasoning_tokens or 0,
            cost=u.total_cost,
        )
    return Reply(
        text=output.completion or "",
        reasoning="\n\n".join(reasoning) or None,
        usage=usage,
        latency=latency,
        stop_reason=str(output.stop_reason) if output.choices else None,
        flags=redacted_flags(output),  # what was scrubbed before inspect recorded it (models.scrubbed)
    )


def _checked(reply: Reply) -> Reply:
    if not reply.text.strip():
        why = "the model hit max_tokens before answering" if reply.stop_reason == "max_tokens" else "no text"
        raise ModelError("empty", why, reply=reply)
    return reply


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    while exc is not None and exc not in out and len(out) < 10:
        out.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return out


# Exceptions (anywhere in the cause chain) that mean the link broke after it was made.
_LINK_BROKEN = {
    "ConnectionResetError",
    "BrokenPipeError",
    "RemoteProtocolError",
    "ReadError",
    "WriteError",
    "ConnectionAbortedError",
    "ServerDisconnectedError",
    "ClientOSError",
}


def _link_broken(exc: BaseException) -> bool:
    """Did the connection break after it was made (a reset, a close), with no HTTP status?"""
    return getattr(exc, "status_code", None) is None and any(
        type(e).__name__ in _LINK_BROKEN for e in _chain(exc)
    )


def classify(exc: BaseException) -> ModelError:
    """A provider exception (after inspect's retries) as a ModelError kind."""
    from tenacity import RetryError

    if isinstance(exc, ModelError):
        return exc
    if isinstance(exc, RetryError) and exc.last_attempt.failed:
        inner = exc.last_attempt.exception()
        if inner is not None:
            return classify(inner)
    unsafe = _unsafe(exc)
    if unsafe is not None:
        return ModelError("bad_reply", str(unsafe))
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    # inspect's ModelGenerateError carries the request dump in str(); the provider's words suffice
    message = _one_line(getattr(exc, "provider_message", None) or str(exc)) or name
    chain = [type(e).__name__ for e in _chain(exc)]
    if _link_broken(exc):  # a reset is not a time-out
        return ModelError("connection", f"connection lost: {message}")
    if isinstance(exc, TimeoutError) or name in {"AttemptTimeoutError", "APITimeoutError", "ReadTimeout"}:
        return ModelError("timeout", message)
    if status == 429 or name == "RateLimitError":
        return ModelError("rate_limit", message)
    if name in {"APIConnectionError", "ConnectError"} and status is None:
        if any(n in ("ConnectError", "ConnectTimeout") for n in chain):
            return ModelError("unreachable", message)
        return ModelError("connection", f"connection lost: {message}")
    cause = exc.__cause__
    if status is None and cause is not None and cause is not exc:
        return classify(cause)
    return ModelError("provider_error", f"HTTP {status}: {message}" if status else message)
