"""The embedded default model: Gemma 3 270M, in-process through llama.cpp, as an inspect provider.

`LocalEngine` owns the one `llama_cpp.Llama` of the process (loading it twice would double the
memory for nothing) and serialises calls with a lock: llama.cpp contexts are not re-entrant, and
the concurrent games of a run queue here for the one model. A reply depends on its prompt alone
(and, above temperature 0, on its seed), never on what was asked before: the prompt is evaluated
in fixed blocks, and the blocks it shares with the previous prompt are kept rather than evaluated
again, which changes the time and not the bits (`decoding.py`). Runs replay exactly.

`LocalModelAPI` registers the engine with inspect as the `plylab-local` provider (and, for
`inspect eval --model plylab/local`, as `plylab`), so the local model goes through the same door (retries, time-outs, concurrency caps) as any hosted one.
A reply to a JSON schema is written where the schema leaves no choice, its choices scored in one
batch and its free values sampled (`structured.py`); a schema it cannot write becomes a GBNF
grammar. Either way the output parses.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib.util
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

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
from ..jsontypes import JSONObject
from .decoding import SEQ_MAX, Decoder, Timings
from .structured import Writer, compile_schema
from .weights import gguf_path

if TYPE_CHECKING:
    import llama_cpp.llama_cpp as lib
    from llama_cpp import Llama, LlamaGrammar

PROVIDER = "plylab-local"
MODEL_NAME = "gemma-3-270m"
# Gemma 3 270M was trained on 32k tokens; 8k holds a long Clue history (a six-player game passes 4k
# around turn 100) and costs ~150 MB of KV cache. Prompt time grows only with the prompt actually sent.
CONTEXT_TOKENS = 8192
CHOICES = ("labels", "grammar")  # how an all-enum reply is chosen (PLYLAB_LOCAL_CHOICE)


class CompletionMessage(TypedDict):
    role: str
    content: str


class CompletionChoice(TypedDict):
    index: int
    message: CompletionMessage
    finish_reason: str  # stop | length


class CompletionUsage(TypedDict):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class Completion(TypedDict):
    """One chat completion, in the OpenAI shape llama-cpp-python's `create_chat_completion` returns."""

    choices: list[CompletionChoice]
    usage: CompletionUsage


class LocalEngine:
    """The process's single llama.cpp model; thread-safe, explicitly closed."""

    _shared: LocalEngine | None = None
    _shared_lock = threading.Lock()

    def __init__(
        self,
        path: Path,
        *,
        n_ctx: int = CONTEXT_TOKENS,
        n_threads: int | None = None,
        choice: str | None = None,
    ) -> None:
        # OpenMP workers that spin while waiting burn ~8x the CPU on a busy machine (and games run
        # beside the model); passive waiting costs nothing when the cores are free. Read at load.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from llama_cpp import Llama

        self.path = path
        self._lock = threading.Lock()
        self.fixed_threads = n_threads or threads_setting()  # None: chosen before each call
        self.threads = self.fixed_threads or max_threads()
        self.choice = choice or choice_setting()
        # llama.cpp's notes are dropped where they are written (`_quiet_llama`). A full-size
        # sliding-window cache keeps every prompt token, so a kept prefix is always whole (Gemma 3
        # slides 5 of its 6 layers); the sequences beside the prompt's score the labels of a choice.
        _quiet_llama()
        with _context_params(n_seq_max=SEQ_MAX, kv_unified=True):
            self._llama: Llama | None = Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=self.threads,
                n_threads_batch=self.threads,
                chat_format="gemma",
                swa_full=True,
                verbose=False,
            )
        self.decoder = Decoder(self._llama)
        self.last = Timings()  # where the last call's time went (bench/bench_models.py reads it)

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
                self.decoder.close()
                self._llama.close()
                self._llama = None

    def _set_threads(self, llama: Llama, n: int) -> None:
        """llama.cpp's threads for the next call; the count changes the time, not the logits (each
        row of a product is one thread's: tests/models/test_local_reuse.py checks replies alike)."""
        if n != self.threads:
            import llama_cpp

            llama_cpp.llama_set_n_threads(llama._ctx.ctx, n, n)
            self.threads = n

    def chat(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float,
        max_tokens: int,
        seed: int,
        schema: JSONObject | None = None,
        cancel: threading.Event | None = None,
    ) -> Completion:
        """One chat completion (OpenAI-shaped dict). Blocking: call it from a worker thread.

        Gemma's chat format and llama-cpp-python's completion rules (end of turn, stop text,
        max_tokens, the token counts), with the prompt's evaluation and the sampling of
        `decoding.py` and, for a schema `structured.py` can write, its written text, label
        choices and free values. A cancelled call stops at its next token."""
        from llama_cpp import llama_chat_format

        with self._lock:
            llama = self._llama
            if llama is None:
                raise RuntimeError("the local model was closed")
            start = time.perf_counter()
            self._set_threads(llama, self.fixed_threads or free_cores())
            d = self.decoder
            d.timings = Timings()
            formatted = llama_chat_format.format_gemma(messages=_fold_system(messages))
            prompt = list(llama.tokenize(formatted.prompt.encode("utf-8"), add_bos=True, special=True))
            if len(prompt) >= d.n_ctx:
                raise ValueError(f"Requested tokens ({len(prompt)}) exceed context window of {d.n_ctx}")
            max_tokens = min(max_tokens, d.n_ctx - len(prompt))
            plan = compile_schema(schema) if self.choice == "labels" else None
            sampler = None
            if plan is None:
                sampler = d.sampler(_grammar(json.dumps(schema)) if schema else None, temperature, seed)
            d.timings.setup = time.perf_counter() - start

            def cancelled() -> bool:
                return cancel is not None and cancel.is_set()

            try:
                d.evaluate(prompt)
                if plan is not None:
                    text, n_out, finish = Writer(
                        d,
                        prompt,
                        temperature=temperature,
                        seed=seed,
                        max_tokens=max_tokens,
                        cancelled=cancelled,
                    ).write(plan)
                else:
                    assert sampler is not None
                    tokens, raw, finish = d.generate(
                        prompt,
                        sampler,
                        max_tokens=max_tokens,
                        stop=[str(formatted.stop).encode("utf-8")],
                        cancelled=cancelled,
                    )
                    text, n_out = raw.decode("utf-8", errors="ignore"), len(tokens)
            finally:
                if sampler is not None:
                    sampler.close()
                self.last = d.timings
            return {
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
                ],
                "usage": {
                    "prompt_tokens": len(prompt),
                    "completion_tokens": n_out,
                    "total_tokens": len(prompt) + n_out,
                },
            }


def threads_setting() -> int | None:
    """llama.cpp's threads as set by `PLYLAB_LOCAL_THREADS`; None, the default, lets `free_cores`
    choose them before each call."""
    text = os.environ.get("PLYLAB_LOCAL_THREADS", "").strip()
    if not text:
        return None
    if not text.isdigit() or not 1 <= int(text) <= 256:
        raise UserError(f"PLYLAB_LOCAL_THREADS must be a whole number from 1 to 256, not '{text}'")
    return int(text)


def max_threads() -> int:
    """The most threads a call takes by default: the cores this process may use, at most 8."""
    return max(1, min(8, len(os.sched_getaffinity(0))))


def free_cores(load: float | None = None) -> int:
    """The threads for the next call: the cores that other processes leave free, by the 1-minute
    load average less this process's own running thread; at least one.

    llama.cpp's threads meet at a barrier after every operation, so a thread that must wait for a
    busy core holds up the rest: on two shared cores (load 5-12), two threads took 5-20x the CPU
    per token of one, while on two idle cores two threads make a move about 1.3x faster
    (bench/RESULTS-models.md)."""
    others = max(0, round((os.getloadavg()[0] if load is None else load) - 1))
    return max(1, min(max_threads(), len(os.sched_getaffinity(0)) - others))


def choice_setting() -> str:
    """How a reply to a schema is made: `labels` (written, its choices scored in one batch:
    `structured.py`, the default) or `grammar` (every token decoded under the schema's grammar, as
    before); `PLYLAB_LOCAL_CHOICE`."""
    text = os.environ.get("PLYLAB_LOCAL_CHOICE", "").strip() or "labels"
    if text not in CHOICES:
        raise UserError(f"PLYLAB_LOCAL_CHOICE must be one of {', '.join(CHOICES)}, not '{text}'")
    return text


@contextlib.contextmanager
def _context_params(**fields: int | bool) -> Iterator[None]:
    """llama-cpp-python's `Llama` takes no n_seq_max or kv_unified: set them on the defaults it reads."""
    import llama_cpp.llama_cpp as lib

    original = lib.llama_context_default_params

    def defaults() -> lib.llama_context_params:
        params: lib.llama_context_params = original()
        for name, value in fields.items():
            setattr(params, name, value)
        return params

    lib.llama_context_default_params = defaults
    try:
        yield
    finally:
        lib.llama_context_default_params = original


class _Unsuppressed:
    """llama-cpp-python's `suppress_stdout_stderr`, doing nothing (see `_quiet_llama`)."""

    def __init__(self, disable: bool = True) -> None:
        pass

    def __enter__(self) -> _Unsuppressed:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


_DROPPED_LOGS: list[object] = []  # the log callback, kept alive as long as llama.cpp may call it


def _quiet_llama() -> None:
    """llama.cpp says nothing on the terminal: its log lines (context notes, a loader's warnings)
    are dropped by a log callback of ours, and llama-cpp-python's own silencing is turned off.

    That silencing (`verbose=False`) pointed the process's file descriptors 1 and 2 and
    `sys.stdout`/`sys.stderr` at /dev/null for the whole load, from the worker thread the load runs
    in: whatever the main thread wrote meanwhile was lost. A Ctrl-C during the load ended the run
    with exit 130 and no line at all, its closing line written to /dev/null. Idempotent."""
    if _DROPPED_LOGS:
        return
    import ctypes

    import llama_cpp
    import llama_cpp._internals
    import llama_cpp.llama

    def drop(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        return None

    callback = llama_cpp.llama_log_callback(drop)
    _DROPPED_LOGS.append(callback)
    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
    for module in (llama_cpp.llama, llama_cpp._internals):
        module.suppress_stdout_stderr = _Unsuppressed  # type: ignore[attr-defined]


@functools.lru_cache(maxsize=256)
def _grammar(schema_json: str) -> LlamaGrammar:
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
        if model_name not in (MODEL_NAME, "local"):
            raise UserError(
                f"unknown local model '{model_name}'; the embedded model is 'local' (or '{MODEL_NAME}')"
            )
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

        def call() -> Completion:  # in a worker thread: loading and decoding block
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
        usage = result["usage"]
        prompt_tokens = int(usage["prompt_tokens"])
        completion_tokens = int(usage["completion_tokens"])
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


@modelapi(name="plylab")
def _plylab_provider() -> type[ModelAPI]:
    """`inspect eval ... --model plylab/local`: the embedded model as inspect names it once the
    package's `inspect_ai` entry point (`plylab.tasks`) is loaded."""
    return LocalModelAPI


atexit.register(LocalEngine.close_shared)  # free llama.cpp before the interpreter tears down ctypes
