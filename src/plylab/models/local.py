"""The embedded default model: Gemma 3 270M, in-process through llama.cpp, as an inspect provider.

`LocalEngine` owns the one `llama_cpp.Llama` of the process (loading it twice would double the
memory for nothing) and serialises calls with a lock: llama.cpp contexts are not re-entrant.
Each call starts from an empty KV cache, so a reply depends on its prompt alone (and, above
temperature 0, on its seed), never on what was asked before: runs replay exactly.

`LocalModelAPI` registers the engine with inspect as the `plylab-local` provider, so the local
model goes through the same door (retries, time-outs, concurrency caps) as any hosted one.
A JSON schema in the request becomes a GBNF grammar, so the output always parses.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib.util
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import anyio
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from ..errors import UserError
from .weights import gguf_path

PROVIDER = "plylab-local"
MODEL_NAME = "gemma-3-270m"
# Gemma 3 270M was trained on 32k tokens; 8k holds a long Clue history (a six-player game passes 4k
# around turn 100) and costs ~150 MB of KV cache. Prompt time grows only with the prompt actually sent.
CONTEXT_TOKENS = 8192


class LocalEngine:
    """The process's single llama.cpp model; thread-safe, explicitly closed."""

    _shared: LocalEngine | None = None
    _shared_lock = threading.Lock()

    def __init__(self, path: Path, *, n_ctx: int = CONTEXT_TOKENS, n_threads: int | None = None) -> None:
        # OpenMP workers that spin while waiting burn ~8x the CPU on a busy machine (and games run
        # beside the model); passive waiting costs nothing when the cores are free. Read at load.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from llama_cpp import Llama

        self.path = path
        self._lock = threading.Lock()
        with _quiet_stderr():  # llama.cpp prints context notes to fd 2 even when not verbose
            self._llama: Any = Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads or min(8, max(1, len(os.sched_getaffinity(0)))),
                chat_format="gemma",
                verbose=False,
            )

    @classmethod
    def shared(cls) -> LocalEngine:
        with cls._shared_lock:
            if cls._shared is None or cls._shared._llama is None:
                try:
                    cls._shared = cls(gguf_path())
                except ImportError:
                    raise UserError(
                        "the local model needs 'llama-cpp-python'; install plylab's dependencies (make setup)"
                    ) from None
                except ValueError as exc:  # llama.cpp refuses the file
                    raise UserError(f"cannot load the local model: {exc}") from None
            return cls._shared

    @classmethod
    def close_shared(cls) -> None:
        with cls._shared_lock:
            if cls._shared is not None:
                cls._shared.close()
                cls._shared = None

    def close(self) -> None:
        with self._lock:
            if self._llama is not None:
                self._llama.close()
                self._llama = None

    def chat(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float,
        max_tokens: int,
        seed: int,
        schema: dict[str, Any] | None = None,
        cancel: threading.Event | None = None,
    ) -> dict[str, Any]:
        """One chat completion (OpenAI-shaped dict). Blocking: call it from a worker thread."""

        def cancelled(input_ids: Any, scores: Any) -> bool:
            return cancel is not None and cancel.is_set()

        with self._lock:
            llama = self._llama
            if llama is None:
                raise RuntimeError("the local model was closed")
            llama.reset()  # empty KV cache: the reply is a function of this prompt alone
            kwargs: dict[str, Any] = {}
            if schema is not None:
                kwargs["grammar"] = _grammar(json.dumps(schema))
            # `create_chat_completion` with Gemma's handler, plus a stopping criterion: asked in Python
            # between tokens, it ends an abandoned reply cleanly. (Raising from a logits processor does
            # not: llama.cpp calls it through a ctypes callback, which swallows the exception, prints
            # "Exception ignored on calling ctypes callback" and decodes on, once per token.)
            return cast(
                dict[str, Any],
                _gemma_handler(cancelled)(
                    llama=llama,
                    messages=_fold_system(messages),
                    temperature=temperature,
                    max_tokens=max_tokens,
                    seed=seed,
                    repeat_penalty=1.0,  # create_chat_completion's default (the handler's own is 1.1)
                    **kwargs,
                ),
            )


def _gemma_handler(stop: Callable[[Any, Any], bool]) -> Any:
    """Gemma's chat-completion handler, its prompt carrying `stop` as a stopping criterion."""
    from llama_cpp import StoppingCriteriaList
    from llama_cpp import llama_chat_format as chat_format

    def formatter(*args: Any, **kwargs: Any) -> Any:
        result = chat_format.format_gemma(*args, **kwargs)
        result.stopping_criteria = StoppingCriteriaList([stop])
        return result

    return chat_format.chat_formatter_to_chat_completion_handler(formatter)


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence file descriptor 2 (C code writes there directly) for the enclosed block."""
    try:
        saved = os.dup(2)
    except OSError:  # no fd 2 at all: nothing to silence
        yield
        return
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


@functools.lru_cache(maxsize=256)
def _grammar(schema_json: str) -> Any:
    """A GBNF grammar for a JSON schema (compiled once per schema: each legal-move set)."""
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_json_schema(schema_json, verbose=False)


def _fold_system(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """Gemma's chat template has no system turn: prepend system text to the first user turn."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    rest = [dict(m) for m in messages if m["role"] != "system"]
    if system:
        if rest and rest[0]["role"] == "user":
            rest[0]["content"] = f"{system}\n\n{rest[0]['content']}"
        else:
            rest.insert(0, {"role": "user", "content": system})
    return rest


class LocalModelAPI(ModelAPI):
    """inspect provider for the in-process model (name `plylab-local/gemma-3-270m`)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(
            model_name=model_name, base_url=base_url, api_key=api_key, config=config or GenerateConfig()
        )
        if model_name != MODEL_NAME:
            raise UserError(f"unknown local model '{model_name}'; the embedded model is '{MODEL_NAME}'")
        if importlib.util.find_spec("llama_cpp") is None:
            raise UserError(
                "the local model needs 'llama-cpp-python'; install plylab's dependencies (make setup)"
            )
        # Assemble the weights now (a clear error up front); load them on the first call, in a worker
        # thread, so a run answered entirely from the response cache never pays for the load.
        self.path = gguf_path()

    @property
    def engine(self) -> LocalEngine:
        return LocalEngine.shared()

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        schema = None
        if config.response_schema is not None:
            schema = config.response_schema.json_schema.model_dump(exclude_none=True)
        messages = [{"role": m.role, "content": m.text} for m in input]
        cancel = threading.Event()

        def call() -> dict[str, Any]:  # in a worker thread: loading and decoding block
            return self.engine.chat(
                messages,
                temperature=config.temperature if config.temperature is not None else 0.0,
                max_tokens=config.max_tokens or 256,
                seed=config.seed if config.seed is not None else 0,
                schema=schema,
                cancel=cancel,
            )

        try:
            result = await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
        except BaseException:
            cancel.set()  # a time-out or a signal: the abandoned thread stops at its next token
            raise
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        prompt_tokens = int(usage.get("prompt_tokens", 0))
        completion_tokens = int(usage.get("completion_tokens", 0))
        return ModelOutput(
            model=self.model_name,
            choices=[
                ChatCompletionChoice(
                    message=ChatMessageAssistant(
                        content=choice["message"].get("content") or "",
                        model=self.model_name,
                        source="generate",
                    ),
                    stop_reason="max_tokens" if choice.get("finish_reason") == "length" else "stop",
                )
            ],
            usage=ModelUsage(
                input_tokens=prompt_tokens,
                output_tokens=completion_tokens,
                total_tokens=prompt_tokens + completion_tokens,
                total_cost=0.0,
            ),
        )

    def max_connections(self) -> int:
        return 1  # one llama.cpp context: calls queue here rather than pile up on threads

    def connection_key(self) -> str:
        return str(self.path)


@modelapi(name=PROVIDER)
def _local_provider() -> type[ModelAPI]:
    return LocalModelAPI


atexit.register(LocalEngine.close_shared)  # free llama.cpp before the interpreter tears down ctypes
