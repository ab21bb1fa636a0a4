"""A toy study in one module, as the manual's Extending page says: a new study is a class with a run
key, its jobs and how a result is saved, handed to the run driver; a CLI command runs it.

Squares: game i "plays" for `delay` seconds and yields i*i, saved in a table of its own. The driver
gives it, unchanged, what every study has: claim, skipping, progress, status, summary, exit 130.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path

import typer

from plylab.cli import app
from plylab.cli import main as plylab_main
from plylab.cli import options as o
from plylab.cli._study import finish
from plylab.harness.driver import exec_options, run_study
from plylab.harness.forecast import Forecast
from plylab.harness.store import Store
from plylab.harness.study import Part, StudyContext
from plylab.players import RunContext

TABLE = "CREATE TABLE IF NOT EXISTS toy_squares (run_id INTEGER, idx INTEGER, value INTEGER, PRIMARY KEY (run_id, idx))"


class SquareStore(Store):
    """The store with the toy's own table: a study that keeps results of its own keeps their SQL in
    a store of its own, so the connection never leaves a store."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._conn.execute(TABLE)

    def squares(self, run_id: int) -> set[int]:
        return {r[0] for r in self._conn.execute("SELECT idx FROM toy_squares WHERE run_id=?", (run_id,))}

    def save_square(self, run_id: int, index: int, value: int) -> bool:
        cur = self._conn.execute("INSERT OR IGNORE INTO toy_squares VALUES (?,?,?)", (run_id, index, value))
        return cur.rowcount == 1


_HELPERS: set[asyncio.Future[None]] = set()


async def _helper() -> None:
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        raise RuntimeError("a helper failed as it was cancelled") from None


@dataclass(frozen=True)
class SquareJob:
    key: str
    index: int
    delay: float
    uses_model: bool = False
    leak: bool = False  # as a library may leave a task behind that fails when cancelled

    async def play(self, context: RunContext) -> tuple[int, int]:
        if self.leak:  # a helper task nobody awaits, that fails when it is cancelled
            _HELPERS.add(asyncio.ensure_future(_helper()))
        await asyncio.sleep(self.delay)
        return self.index, self.index * self.index


class Squares:
    kind = "toy"

    def __init__(self, games: int, delay: float, fail_on_stop: bool = False) -> None:
        self.name, self.planned, self.delay = f"squares-{games}", games, delay
        self.fail_on_stop = fail_on_stop  # its clean-up turns a Ctrl-C's cancellation into an error
        self.lease = f"toy:{self.name}"

    def open_store(self, path: Path) -> SquareStore:
        return SquareStore(path)

    async def parts(
        self, store: SquareStore, context: StudyContext
    ) -> AsyncGenerator[Part[SquareJob, tuple[int, int]], None]:
        run_id = store.open_run(self.name, 0, {"toy": "squares", "games": self.planned}, kind="toy")
        done = store.squares(run_id)

        def save(result: tuple[int, int]) -> bool:
            return store.save_square(run_id, *result)

        leak = self.fail_on_stop
        jobs = (
            SquareJob(f"{self.name}/{i}", i, self.delay, leak=leak)
            for i in range(self.planned)
            if i not in done
        )
        try:
            yield Part(
                jobs,
                save,
                lambda status, why: store.finish_run(run_id, status, why),
                self.planned,
                already=len(done),
                model=False,
            )
        except GeneratorExit:
            if self.fail_on_stop:  # as a library's clean-up may fail when its work is cancelled
                raise RuntimeError("the clean-up failed as the run stopped") from None
            raise

    def details(self) -> list[str]:
        return ["squares of 0.." + str(self.planned - 1)]

    def forecast(self, store_path: Path) -> Forecast:
        return Forecast(self.kind, self.name, self.planned)  # no model calls to foresee


def squares(
    games: int = typer.Option(10, "--games"),
    delay: float = typer.Option(0.0, "--delay"),
    store: o.Store = Path("toy.sqlite"),
    concurrency: o.Concurrency = 1,
    quiet: o.Quiet = False,
    fail_on_stop: bool = typer.Option(False, "--fail-on-stop"),
) -> None:
    """Play the toy study; re-running resumes it."""
    study = Squares(games, delay, fail_on_stop)
    options = exec_options(store, concurrency=concurrency)
    finish(run_study(study, store, options=options, progress=not quiet))


def main(argv: list[str]) -> int:
    app.command("squares")(squares)
    return plylab_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
