"""The one door to language models.

    model = get_model("local")                       # or "openai/gpt-5-mini", "openai-api/svc/m", ...
    reply = await model.generate([{"role": "user", "content": "..."}], schema=..., cache=cache,
                                 cache_key=f"{job_key}/{ply}/{attempt}")

Importing this package is cheap: inspect_ai and llama.cpp load on the first `get_model`.
"""

from .cache import ResponseCache, make_key, request_record
from .config import Effort, GenerateConfig
from .errors import ErrorKind, ModelError
from .model import LOCAL, CallGate, Model, get_model, set_call_gate
from .reply import Reply, Usage

__all__ = [
    "LOCAL",
    "CallGate",
    "Effort",
    "ErrorKind",
    "GenerateConfig",
    "Model",
    "ModelError",
    "Reply",
    "ResponseCache",
    "Usage",
    "get_model",
    "make_key",
    "request_record",
    "set_call_gate",
]
