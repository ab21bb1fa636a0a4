"""What runs inside Ray: the batch task, the response-cache server and the model gates.

A batch is a streaming generator: it plays its games in the worker and yields each record the
moment its game ends, so the driver saves games one by one, never a whole batch at once.

Model games need two things from the run: its response cache (a table in the store, on the
driver's disk) and each model's concurrency cap, shared by the whole cluster. Workers on the
driver's node open the store's cache directly (SQLite WAL takes several processes); workers
elsewhere ask a cache actor pinned to the driver's node. The cap is one semaphore per model in a
single `ModelGates` actor owned by the driver, so it dies with the run and no permit outlives it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

import ray

from ...players import RunContext
from ..text_homes import text_at_home
from .base import play

if TYPE_CHECKING:
    from ray import ObjectRef

    from ...models import CacheRequest, Model, Reply, ReplyCache, ResponseCache


R = TypeVar("R")


class Remote(Protocol[R]):
    """An actor method as its handle has it (Ray types a handle's methods as nothing): `.remote(...)`
    sends the call and gives the ObjectRef its answer will be in, to await or to `ray.get`."""

    def remote(self, *args: object) -> ObjectRef[R]: ...


class CacheHandle(Protocol):
    """A `CacheServer` actor's handle."""

    get: Remote[Reply | None]
    put: Remote[None]


class GatesHandle(Protocol):
    """A `ModelGates` actor's handle."""

    acquire: Remote[None]
    release: Remote[None]


@ray.remote(num_cpus=0)
class CacheServer:
    """The run's response cache, served from the driver's node to workers that cannot see the store."""

    def __init__(self, store_path: str) -> None:
        from ...models import ResponseCache

        self.cache = ResponseCache.open(store_path, homes=text_at_home)

    def get(self, key: str) -> Reply | None:
        return self.cache.get(key)

    def put(self, key: str, request: CacheRequest, reply: Reply) -> None:
        self.cache.put(key, request, reply)


@ray.remote(num_cpus=0)
class ModelGates:
    """One semaphore per model identity: at most `limit` calls to a model at once, cluster-wide."""

    def __init__(self) -> None:
        self.gates: dict[str, asyncio.Semaphore] = {}

    async def acquire(self, model: str, limit: int) -> None:
        gate = self.gates.setdefault(model, asyncio.Semaphore(max(1, limit)))
        await gate.acquire()

    async def release(self, model: str) -> None:
        self.gates[model].release()


@dataclass(frozen=True)
class Services:
    """Handles a batch needs for model games (picklable: actor handles and plain values)."""

    cache: CacheHandle | None  # None without a store
    gates: GatesHandle
    driver_node: str


class RemoteCache:
    """The ResponseCache interface (get/put) over the cache actor."""

    def __init__(self, server: CacheHandle) -> None:
        self.server = server
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> Reply | None:
        reply = ray.get(self.server.get.remote(key))
        if reply is None:
            self.misses += 1
        else:
            self.hits += 1
        return reply

    def put(self, key: str, request: CacheRequest, reply: Reply) -> None:
        ray.get(self.server.put.remote(key, request, reply))  # durable before the game goes on

    def close(self) -> None:
        """The server owns the store connection."""


# Per worker process: one event loop for every batch (a model client made in one batch stays
# bound to this loop and is reused by the next), the open caches, and the current gates.
_LOOP: asyncio.AbstractEventLoop | None = None
_CACHES: dict[str, ResponseCache] = {}
_GATES: GatesHandle | None = None


def _loop() -> asyncio.AbstractEventLoop:
    global _LOOP
    if _LOOP is None or _LOOP.is_closed():
        _LOOP = asyncio.new_event_loop()
        asyncio.set_event_loop(_LOOP)
    return _LOOP


def _cache(store_path: Path | None, services: Services) -> ReplyCache | None:
    if store_path is None:
        return None
    here = ray.get_runtime_context().get_node_id()
    if here == services.driver_node or services.cache is None:
        key = str(store_path)
        if key not in _CACHES:
            from ...models import ResponseCache

            _CACHES[key] = ResponseCache.open(store_path, homes=text_at_home)
        return _CACHES[key]
    return RemoteCache(services.cache)


def _install_gates(gates: GatesHandle) -> None:
    """Route every hosted-model call of this worker through the cluster-wide gates (the models'
    call-gate hook: cache hits never take a permit)."""
    global _GATES
    _GATES = gates
    from ...models import set_call_gate

    set_call_gate(_model_gate)


def _model_gate(model: Model) -> AbstractAsyncContextManager[None]:
    """The local model is left alone: each worker has its own in-process copy, capped per process."""
    gates = _GATES
    if gates is None or model.is_local:
        return nullcontext()
    return _cluster_permit(gates, model.identity, model.max_connections)


@asynccontextmanager
async def _cluster_permit(gates: GatesHandle, model: str, limit: int) -> AsyncIterator[None]:
    await gates.acquire.remote(model, limit)
    try:
        yield
    finally:
        gates.release.remote(model)


def _grade_with_my_cpus() -> None:
    """The worker grades where it plays, with as many engine processes as Ray gave this task CPUs
    (at least one; oracles/engine_pool.py), not one per core of the node."""
    from ...oracles.engine_pool import set_share

    cpus = ray.get_runtime_context().get_assigned_resources().get("CPU", 1.0)
    set_share(int(cpus))


def play_batch(
    jobs: list[object], context: RunContext, concurrent: bool, services: Services | None
) -> Iterator[tuple[str, object]]:
    """Play `jobs` here and yield (node id, record) as each game ends (an `Unfinished` for a game
    a provider failure left unfinished).

    `concurrent`: all games at once (they wait on models); else one after another (CPU-bound).
    """
    loop = _loop()
    node = ray.get_runtime_context().get_node_id()
    _grade_with_my_cpus()
    ctx = context
    if services is not None:
        _install_gates(services.gates)
        ctx = RunContext(
            store_path=context.store_path, cache=_cache(context.store_path, services), extra=context.extra
        )
    if not concurrent:
        for job in jobs:
            yield node, loop.run_until_complete(play(job, ctx))
        return
    pending: set[asyncio.Task[object]] = {loop.create_task(play(job, ctx)) for job in jobs}
    try:
        while pending:
            done, pending = loop.run_until_complete(
                asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            )
            for task in done:
                yield node, task.result()
    finally:  # cancelled, or a game failed: stop the others before the worker takes new work
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
