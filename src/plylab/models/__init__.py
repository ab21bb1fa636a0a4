"""The one door to language models.

    model = get_model("local")                       # or "openai/gpt-5-mini", "openai-api/svc/m", ...
    reply = await model.generate([{"role": "user", "content": "..."}], schema=..., cache=cache,
                                 cache_key=f"{job_key}/{ply}/{attempt}")

Importing this package is cheap: each name below loads its module on first use (so the store can
import the one it needs and no more), and inspect_ai and llama.cpp load on the first `get_model`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..registry import lazy_attributes

if TYPE_CHECKING:
    from .cache import CacheRequest, ReplyCache, ResponseCache, make_key, request_record
    from .config import Effort, GenerateConfig
    from .failures import ErrorKind, ModelError
    from .model import LOCAL, CallGate, Model, get_model, set_call_gate
    from .reply import Reply, Usage

_HOME = {
    "CacheRequest": "cache",
    "ReplyCache": "cache",
    "ResponseCache": "cache",
    "make_key": "cache",
    "request_record": "cache",
    "Effort": "config",
    "GenerateConfig": "config",
    "ErrorKind": "failures",
    "ModelError": "failures",
    "LOCAL": "model",
    "CallGate": "model",
    "Model": "model",
    "get_model": "model",
    "set_call_gate": "model",
    "Reply": "reply",
    "Usage": "reply",
}


__getattr__ = lazy_attributes(__name__, _HOME)

__all__ = [
    "LOCAL",
    "CacheRequest",
    "CallGate",
    "Effort",
    "ErrorKind",
    "GenerateConfig",
    "Model",
    "ModelError",
    "Reply",
    "ReplyCache",
    "ResponseCache",
    "Usage",
    "get_model",
    "make_key",
    "request_record",
    "set_call_gate",
]
