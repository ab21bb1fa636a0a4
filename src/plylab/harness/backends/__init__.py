"""Executor backends: the contract (`base`), `local` (this machine) and the optional `ray`.

Each registers in `EXECUTORS` by name here; the heavy imports of an optional backend wait until it
is actually chosen, so a missing extra is one clear error, not an import crash.
"""

from __future__ import annotations

from ...errors import UserError
from .base import EXECUTORS, ExecOptions, Executor, backend_session, make_executor, play, uses_model
from .local import LocalExecutor

RAY_MISSING = "the ray backend needs Ray, an optional extra: pip install 'plylab[ray]'"


def _ray(options: ExecOptions) -> Executor:
    try:
        import ray  # noqa: F401
    except ImportError:
        raise UserError(RAY_MISSING) from None
    from .ray import RayExecutor

    return RayExecutor(options)


EXECUTORS.add("local", LocalExecutor)
EXECUTORS.add("ray", _ray)

__all__ = [
    "EXECUTORS",
    "ExecOptions",
    "Executor",
    "LocalExecutor",
    "backend_session",
    "make_executor",
    "play",
    "uses_model",
]
