"""The `ray` backend: game jobs run on a Ray cluster in batches; games stream back to one writer.

Why batches: a Ray task costs about a millisecond to schedule, more than a tic-tac-toe game, so
one task per game (let alone per move) would measure Ray. A batch is one task that plays several
games in the worker and yields each record as its game ends (see `ray_worker.play_batch`).

- CPU-bound batches (no model player) hold one CPU each and play their games one after another;
  about two batches per CPU are queued so no CPU waits for the driver.
- Model batches play their games concurrently (they mostly wait on a model) and hold a fraction
  of a CPU, so that `--concurrency` games are in flight across the whole cluster; each model's
  own concurrency cap is enforced cluster-wide by the `ModelGates` actor.

`should_start()` is asked before each game is put in a batch; once it says no, no batch is sent
and the batches in flight finish. With no address, a local Ray instance is started with its
temporary files under the run's folder and stopped at the end; with one, the cluster is joined.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import os
import shutil
import socket
import tempfile
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ...errors import UserError
from ...players import RunContext
from .base import ExecOptions, OnResult, ShouldStart, uses_model
from .ray_worker import CacheServer, ModelGates, Services, play_batch

if TYPE_CHECKING:
    from ray.actor import ActorHandle
    from ray.util.streaming_generator import ObjectRefGenerator

# Unix socket paths are limited to 107 bytes and Ray puts "<temp>/session_<date>_<pid>/sockets/
# plasma_store" (about 62 bytes after <temp>) under its temporary folder.
MAX_TEMP_DIR = 42
MAX_CPU_BATCH = 16
MAX_MODEL_BATCH = 32

_play_batch = ray.remote(num_returns="streaming")(play_batch)

# Joining a cluster, these travel to the workers (whose environment is the nodes', not ours):
# provider keys and servers (OPENAI_API_KEY, <SERVICE>_BASE_URL, ...) and plylab's own settings.
FORWARDED_ENV = ("_API_KEY", "_BASE_URL")


def forwarded_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.endswith(FORWARDED_ENV) or k.startswith("PLYLAB_")}


@dataclass
class Batch:
    jobs: list[object]
    concurrent: bool
    cpus: float


class BatchPlanner:
    """Cuts the job stream into batches and keeps the cluster busy without starting too much.

    Jobs are drawn from the stream only a window ahead of the batches sent (so a billion-game plan
    costs no memory); batch sizes follow the jobs in that window, as they followed the whole list.
    Determinism does not depend on the cut: each game's seed comes from its job alone.
    """

    def __init__(
        self, jobs: Iterable[object], slots: int, concurrency: int, should_start: ShouldStart
    ) -> None:
        self.source = iter(jobs)
        self.slots = max(1, slots)
        self.window = self.slots * 8 * MAX_CPU_BATCH
        self.cpu: deque[object] = deque()
        self.model: deque[object] = deque()
        self.drained = False
        self._fill()
        self.cpu_size = max(1, min(MAX_CPU_BATCH, math.ceil(len(self.cpu) / (self.slots * 8))))
        self.concurrency = max(1, concurrency)
        # About two model batches per CPU slot: few worker processes (each imports the model stack
        # once) yet games keep starting as others end. Their CPU share lets twice as many batches
        # run as are in flight, so a new batch never queues behind a nearly finished one.
        self.model_size = max(1, min(MAX_MODEL_BATCH, math.ceil(self.concurrency / (self.slots * 2))))
        most_batches = math.ceil(self.concurrency / self.model_size)
        self.model_cpus = round(min(1.0, self.slots / (2 * most_batches)), 4)
        self.should_start = should_start
        self.stopped = False
        self.cpu_batches = 0  # CPU batches in flight
        self.model_games = 0  # model games in flight

    def _fill(self) -> None:
        while not self.drained and len(self.cpu) + len(self.model) < self.window:
            job = next(self.source, None)
            if job is None:
                self.drained = True
            else:
                (self.model if uses_model(job) else self.cpu).append(job)

    def _take(self, queue: deque[object], n: int) -> list[object]:
        taken: list[object] = []
        while queue and len(taken) < n and not self.stopped:
            if not self.should_start():
                self.stopped = True
                break
            taken.append(queue.popleft())
        self._fill()
        return taken

    def next_batch(self) -> Batch | None:
        if self.model and self.model_games + min(self.model_size, len(self.model)) <= self.concurrency:
            jobs = self._take(self.model, self.model_size)
            if jobs:
                self.model_games += len(jobs)
                return Batch(jobs, True, self.model_cpus)
        if self.cpu and self.cpu_batches < 2 * self.slots:
            jobs = self._take(self.cpu, self.cpu_size)
            if jobs:
                self.cpu_batches += 1
                return Batch(jobs, False, 1.0)
        return None

    def game_done(self, batch: Batch) -> None:
        if batch.concurrent:
            self.model_games -= 1

    def batch_done(self, batch: Batch) -> None:
        if not batch.concurrent:
            self.cpu_batches -= 1


def _temp_root(run_dir: str | None) -> tuple[Path, bool]:
    """(folder for a local instance's temporary files, whether we created it).

    `<run folder>/.ray` when its path is short enough for Ray's sockets, else a short /tmp folder.
    """
    if run_dir is not None:
        root = Path(run_dir).resolve() / ".ray"
        if len(str(root)) <= MAX_TEMP_DIR:
            created = not root.exists()
            root.mkdir(parents=True, exist_ok=True)
            return root, created
    return Path(tempfile.mkdtemp(prefix="plylab-ray-")), True


def _remove_session(root: Path, created: bool, session_dir: str | None) -> None:
    """Delete this instance's session folder (not other runs' ones), and the root if it is ours."""
    if session_dir:
        shutil.rmtree(session_dir, ignore_errors=True)
        latest = root / "session_latest"
        if latest.is_symlink() and not latest.exists():
            latest.unlink()
    if created:
        with suppress(OSError):
            for leftover in ("ray_current_cluster",):
                (root / leftover).unlink(missing_ok=True)
            root.rmdir()


@contextmanager
def ray_session(options: ExecOptions) -> Iterator[None]:
    """Connect to `options.address`, or start (and finally stop) a local instance."""
    if ray.is_initialized():  # the caller owns the connection (a notebook, a test, another command)
        yield
        return
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # Ray's own warnings (e.g. about its token auth) are not the user's business; errors still show.
    if options.address:
        try:
            ray.init(
                address=options.address,
                runtime_env={"env_vars": forwarded_env()},
                log_to_driver=False,
                logging_level=logging.ERROR,
            )
        except Exception as exc:  # noqa: BLE001 - unreachable, refused, wrong token: one line
            raise UserError(
                f"cannot join the Ray cluster at '{options.address}': {str(exc).splitlines()[0]}"
            ) from None
        try:
            yield
        finally:
            ray.shutdown()
        return
    root, created = _temp_root(options.run_dir)
    try:
        ray.init(
            address="local",
            num_cpus=options.workers or None,
            include_dashboard=False,
            _temp_dir=str(root),
            log_to_driver=False,
            logging_level=logging.ERROR,
        )
    except BaseException:
        _remove_session(root, created, None)
        raise
    session = _session_dir()
    try:
        yield
    finally:
        ray.shutdown()
        _remove_session(root, created, session)


def _session_dir() -> str | None:
    node = getattr(ray._private.worker, "_global_node", None)  # noqa: SLF001 - Ray has no public getter
    return node.get_session_dir_path() if node is not None else None


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast, before the store is touched, on an address nothing listens at (Ray itself retries
    for minutes). `auto` and other non host:port forms are left to Ray."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "/" in host:
        return
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as exc:
        raise UserError(
            f"cannot reach the Ray cluster at '{address}' ({exc.strerror or type(exc).__name__}); "
            "give the head node's address as HOST:PORT (`ray start --head` prints it)"
        ) from None


def _cause(exc: BaseException) -> BaseException:
    """A game's own exception out of Ray's wrapper (a UserError stays one clear line)."""
    return getattr(exc, "cause", None) or exc


class RayExecutor:
    """Runs jobs on Ray; see the module docstring. `nodes` counts games per node id after a run."""

    def __init__(self, options: ExecOptions) -> None:
        if options.address:
            check_reachable(options.address)
        self.options = options
        self.nodes: Counter[str] = Counter()
        self.batches = 0

    def session(self) -> AbstractContextManager[None]:
        return ray_session(self.options)

    async def run(
        self, jobs: Iterable[object], context: RunContext, on_result: OnResult, should_start: ShouldStart
    ) -> None:
        source = iter(jobs)
        first = next(source, None)
        if first is None:
            return
        with ray_session(self.options):
            await self._run(itertools.chain([first], source), context, on_result, should_start)

    def _services(self, context: RunContext) -> Services:
        node = ray.get_runtime_context().get_node_id()
        pinned = NodeAffinitySchedulingStrategy(node_id=node, soft=False)
        others = [n for n in ray.nodes() if n["Alive"] and n["NodeID"] != node]
        cache = None
        if context.store_path is not None and others:  # workers here open the store themselves
            # ray.remote classes gain `.options` at run time, which their stubs do not show
            cache = CacheServer.options(  # type: ignore[attr-defined]
                scheduling_strategy=pinned
            ).remote(str(Path(context.store_path).resolve()))
        gates = ModelGates.options(scheduling_strategy=pinned).remote()  # type: ignore[attr-defined]
        return Services(cache=cache, gates=gates, driver_node=node)

    async def _run(
        self, jobs: Iterable[object], context: RunContext, on_result: OnResult, should_start: ShouldStart
    ) -> None:
        slots = self.options.workers or int(ray.cluster_resources().get("CPU", 1))
        planner = BatchPlanner(jobs, slots, self.options.concurrency, should_start)
        services: Services | None = None  # started with the first model batch
        store_path = Path(context.store_path).resolve() if context.store_path is not None else None
        shipped = RunContext(store_path=store_path, extra=context.extra)
        wake = asyncio.Event()
        running: dict[asyncio.Task[None], ObjectRefGenerator] = {}

        async def drain(batch: Batch, gen: ObjectRefGenerator) -> None:
            async for ref in gen:
                node, record = await ref
                planner.game_done(batch)
                self.nodes[node] += 1
                on_result(record)
                wake.set()
            planner.batch_done(batch)

        try:
            while True:
                while (batch := planner.next_batch()) is not None:
                    if batch.concurrent and services is None:
                        services = self._services(context)
                    # Model batches ask for little CPU, so Ray would pack them all on one node: spread them.
                    spread = "SPREAD" if batch.concurrent else "DEFAULT"
                    gen = _play_batch.options(num_cpus=batch.cpus, scheduling_strategy=spread).remote(
                        batch.jobs, shipped, batch.concurrent, services if batch.concurrent else None
                    )
                    self.batches += 1
                    running[asyncio.create_task(drain(batch, gen))] = gen
                if not running:
                    break
                wake.clear()
                waiter = asyncio.create_task(wake.wait())
                done, _ = await asyncio.wait({*running, waiter}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                for task in done:
                    if task is waiter:
                        continue
                    running.pop(task)  # type: ignore[arg-type]
                    try:
                        task.result()
                    except ray.exceptions.RayTaskError as exc:  # a game failed: its own error
                        raise _cause(exc) from None
                    except ray.exceptions.RayError as exc:  # the cluster failed (a node died, ...)
                        first = (str(exc).strip().splitlines() or [""])[0]
                        raise UserError(
                            f"the Ray cluster failed ({type(exc).__name__}: {first}); the games saved so far "
                            "are kept: re-run the same command to resume"
                        ) from None
        finally:
            for task, gen in running.items():
                task.cancel()
                with suppress(Exception):
                    ray.cancel(gen)
            if running:
                await asyncio.gather(*running, return_exceptions=True)
            for actor in (services.cache, services.gates) if services is not None else ():
                if actor is not None:
                    with suppress(Exception):
                        # a session held across runs keeps no stale actors (typed here by what we call)
                        ray.kill(cast("ActorHandle[object]", actor))
