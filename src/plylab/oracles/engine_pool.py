"""How many engine processes grade positions at once: one per core the run may use, each one thread.

The pool itself is `oracles.engine.EnginePool`; this module sizes it (and is what the backends ask).

One Stockfish process searching one position at a time is what grading a chess move costs (a
search at the default 20,000 nodes takes one core about 34 ms), so a run grading with one process
grades one position at a time however many games are in flight. A pool holds up to `size`
processes of one engine and lends each search to an idle one, starting another (up to `size`)
only when every one is busy, so a run that grades one position at a time still holds one process.

A score never depends on which process made it: every process runs one thread (`Threads=1`) with
a small hash that is cleared before every search (`ucinewgame`: oracles/engine_process.py), so a
search by nodes or depth is the same search in any process; the same positions get the same
evaluations whatever the pool's size (tests/oracles/test_engine_pool.py). Every process keeps its
own deadlines and restarts (EngineProcess): when one gives an engine up, every call to that engine
fails at once, with one line between them, and the game is left unfinished, as with one process.

The size: PLYLAB_ENGINES (a number of processes), else the cores this process may use
(`os.sched_getaffinity`: a container's or `taskset`'s limit), divided among the run's worker
processes where it has some (the local backend's `--workers`; a Ray worker takes the CPUs Ray gave
its task), so a run never starts more graders than it has cores.
"""

from __future__ import annotations

import os

from ..errors import UserError

ENGINES_ENV = "PLYLAB_ENGINES"
MAX_ENGINES = 1024
_share: list[int] = []  # the cores this process was given by its backend (a worker's share), if any


def cores() -> int:
    """The cores this process may run on (its affinity mask: a container's or taskset's limit)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def set_share(n: int) -> None:
    """A worker process's share of the machine (cores // workers, or the CPUs Ray gave its task):
    the pool's default size in this process from now on."""
    _share[:] = [max(1, int(n))]


def pool_size() -> int:
    """How many engine processes grade at once in this process: PLYLAB_ENGINES, else this process's
    share of the cores (`set_share`), else every core it may use."""
    text = os.environ.get(ENGINES_ENV, "").strip()
    if text:
        try:
            n = int(text)
        except ValueError:
            n = 0
        if not 1 <= n <= MAX_ENGINES:
            raise UserError(
                f"{ENGINES_ENV}='{text}' is not accepted; give the number of engine processes that "
                f"grade at once, 1 to {MAX_ENGINES} (default: the cores the run may use, {cores()} here)"
            )
        return n
    return _share[0] if _share else cores()
