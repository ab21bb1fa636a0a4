"""Optional executor backends. Each registers in `EXECUTORS` by name; its heavy imports wait
until the backend is actually chosen, so a missing extra is one clear error, not an import crash.
"""

from __future__ import annotations

from ...errors import UserError
from ..executor import EXECUTORS, ExecOptions, Executor

RAY_MISSING = "the ray backend needs Ray, an optional extra: pip install 'plylab[ray]'"


def _ray(options: ExecOptions) -> Executor:
    try:
        import ray  # noqa: F401
    except ImportError:
        raise UserError(RAY_MISSING) from None
    from .ray import RayExecutor

    return RayExecutor(options)


if "ray" not in EXECUTORS:
    EXECUTORS.add("ray", _ray)
