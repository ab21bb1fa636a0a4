"""A study added in one module (tests/harness/toy_study.py) runs through the CLI, stops on a
signal with status `interrupted` and exit 130, and resumes to the end, each game saved once."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

import pytest

from tests.support.runs import no_run_outlives_its_test, spawn, stop, wait_for_games  # noqa: F401

TOY = ["-m", "tests.harness.toy_study", "squares"]


@pytest.mark.slow
def test_a_toy_study_runs_through_the_cli_stops_on_ctrl_c_and_resumes(tmp_path: Path) -> None:
    store = tmp_path / "toy.sqlite"
    args = ["--games", "40", "--store", str(store), "-q"]
    proc = spawn([*TOY, *args, "--delay", "0.2"])
    wait_for_games(proc, store, 3, table="toy_squares", timeout=60)
    out, err = stop(proc, signal.SIGINT)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert out.count("\n") == 1 and "toy 'squares-40' interrupted" in out and "re-run the same command" in out
    db = sqlite3.connect(store)
    assert db.execute("SELECT kind, status FROM runs").fetchall() == [("toy", "interrupted")]
    saved = db.execute("SELECT COUNT(*) FROM toy_squares").fetchone()[0]
    assert 3 <= saved < 40

    again = spawn([*TOY, *args])
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert "toy 'squares-40' finished: 40/40 games saved" in out and f"{saved} already there" in out
    assert "squares of 0..39" in out  # the study's own summary contents
    assert db.execute("SELECT status FROM runs").fetchall() == [("finished",)]
    rows = db.execute("SELECT idx, value FROM toy_squares ORDER BY idx").fetchall()
    assert rows == [(i, i * i) for i in range(40)]


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_is_an_interruption_whatever_the_cancellation_became(tmp_path: Path, sig: int) -> None:
    """Ctrl-C cancels the study's task; what is cancelled may fail on its way out (a library's
    clean-up, a cancellation turned into an error). The run was interrupted all the same: exit 130 and
    one line, never a traceback (issue 37 point 8: under load a SIGINT can land in such a clean-up)."""
    store = tmp_path / "toy.sqlite"
    proc = spawn([*TOY, "--games", "40", "--store", str(store), "-q", "--delay", "0.2", "--fail-on-stop"])
    wait_for_games(proc, store, 2, table="toy_squares", timeout=60)
    out, err = stop(proc, sig)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "failed" not in err
    assert out.count("\n") == 1 and "toy 'squares-40' interrupted" in out
    db = sqlite3.connect(store)
    assert db.execute("SELECT status FROM runs").fetchall() == [("interrupted",)]


class Completed:
    """The toy study whose part is completed by a step after its games (as a learning phase's rule
    extraction completes the phase): what the store said while it ran, and whether it fails."""

    def __init__(self, fail: bool) -> None:
        from tests.harness.toy_study import Squares

        self.toy, self.fail, self.seen = Squares(3, 0.0), fail, []
        for name in ("kind", "name", "lease", "planned", "open_store", "details", "forecast"):
            setattr(self, name, getattr(self.toy, name))

    async def parts(self, store, context):
        async for part in self.toy.parts(store, context):

            async def after() -> None:
                self.seen += [(r.status,) for r in store.runs()]
                if self.fail:
                    raise RuntimeError("extraction failed")

            part.after = after
            yield part


@pytest.mark.parametrize("fail", [False, True])
def test_a_part_is_finished_only_after_what_completes_it(tmp_path: Path, fail: bool) -> None:
    from plylab.harness.driver import run_study

    study = Completed(fail)
    store = tmp_path / "toy.sqlite"
    if fail:
        with pytest.raises(RuntimeError, match="extraction failed"):
            run_study(study, store, progress=False)
    else:
        assert run_study(study, store, progress=False).status == "finished"
    assert study.seen == [("running",)]  # its games were saved, the part not yet finished
    status, reason = sqlite3.connect(store).execute("SELECT status, stop_reason FROM runs").fetchone()
    assert (status, reason) == (("failed", "RuntimeError: extraction failed") if fail else ("finished", None))


class StoppedInAfter(Completed):
    """The toy study whose completing step (a learning phase's rule extraction) is cut by SIGTERM."""

    def __init__(self) -> None:
        super().__init__(False)

    async def parts(self, store, context):
        async for part in self.toy.parts(store, context):

            async def after() -> None:
                import asyncio
                import os

                os.kill(os.getpid(), signal.SIGTERM)
                await asyncio.sleep(60)  # cancelled by the signal

            part.after = after
            yield part


def test_a_run_stopped_while_completing_a_part_counts_the_stored_games_and_says_to_rerun(
    tmp_path: Path,
) -> None:
    """`learn` stopped during its rule extraction said "3/3 games saved" with 2 stored and no hint:
    the part's games were counted once when played and again when the signal came."""
    from plylab.harness.driver import run_study

    store = tmp_path / "toy.sqlite"
    summary = run_study(StoppedInAfter(), store, progress=False)
    stored = sqlite3.connect(store).execute("SELECT COUNT(*) FROM toy_squares").fetchone()[0]
    assert summary.status == "interrupted" and stored == 3
    assert summary.saved == stored, summary.line()
    assert "re-run the same command" in summary.line(), summary.line()
