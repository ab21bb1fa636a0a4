"""`plylab models prepare` and `plylab models list`: the embedded model and the providers."""

from __future__ import annotations

import json
import os
import time
from typing import Any, Literal

import typer

# Provider families inspect serves, with where their credentials and servers come from.
PROVIDERS = [
    ("openai/<model>", "OpenAI (Responses API, reasoning effort and summaries)", "OPENAI_API_KEY"),
    ("anthropic/<model>", "Anthropic (needs `pip install anthropic`)", "ANTHROPIC_API_KEY"),
    ("google/<model>", "Google Gemini (needs `pip install google-genai`)", "GOOGLE_API_KEY"),
    ("vllm/<model>", "a vLLM server (base_url=, or VLLM_BASE_URL)", "VLLM_API_KEY"),
    ("ollama/<model>", "an Ollama server (default http://localhost:11434/v1)", None),
    ("openai-api/<service>/<model>", "any OpenAI-compatible server (base_url=)", "<SERVICE>_API_KEY"),
]

models_app = typer.Typer(
    help="Language models: the embedded local model and hosted providers.", no_args_is_help=True
)


@models_app.command("prepare")
def prepare() -> None:
    """Assemble the local model's GGUF into the cache and load it once (set-up runs this)."""
    from ..models import get_model
    from ..models.local import LocalEngine
    from ..models.weights import gguf_path

    path = gguf_path()
    start = time.perf_counter()
    get_model("local")
    LocalEngine.shared()  # the first call would load it; load it now, so set-up proves it works
    print(
        f"local model ready: {path} ({path.stat().st_size / 1e6:.0f} MB, loaded in {time.perf_counter() - start:.1f}s)"
    )


@models_app.command("list")
def list_models(
    fmt: Literal["table", "json"] = typer.Option("table", "--format", help="table or json"),
) -> None:
    """The embedded model and the providers a model name may use (no network, no key values)."""
    from ..models.weights import GGUF_NAME, cache_dir, is_prepared

    path = cache_dir() / GGUF_NAME
    rows: list[dict[str, Any]] = [
        {
            "name": "local",
            "summary": "Gemma 3 270M (Q4_K_M), in-process llama.cpp; the default",
            "ready": is_prepared(path),
            "path": str(path),
        }
    ]
    for name, summary, key in PROVIDERS:
        has_key = None if key is None or key.startswith("<") else bool(os.environ.get(key))
        rows.append({"name": name, "summary": summary, "key": key, "key_set": has_key})
    if fmt == "json":
        print(json.dumps({"models": rows}, indent=2))
        return
    for r in rows:
        if r["name"] == "local":
            state = "ready" if r["ready"] else "not prepared: run `plylab models prepare`"
            print(f"{'local':<30} {r['summary']} [{state}]")
        else:
            key = (
                ""
                if r["key"] is None
                else f" [{r['key']}" + {True: " set", False: " not set", None: ""}[r["key_set"]] + "]"
            )
            print(f"{r['name']:<30} {r['summary']}{key}")


def register(app: typer.Typer) -> None:
    app.add_typer(models_app, name="models")
