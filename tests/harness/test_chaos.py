"""Nothing is lost: SIGKILL at random moments, then resume; Ctrl-C ends with one summary line.

The kill-and-resume loop and the store audit live in tests/support/chaos.py (its long version runs
as bench/chaos.py); this is the short one, on the local backend (the ray one is in test_ray.py, which owns
the loopback cluster).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.support import chaos
from tests.support.chaos import assert_clean_interrupt, interrupt_run


def test_audit_finds_damage(tmp_path: Path) -> None:
    """The audit is only worth something if it fails on a damaged store."""
    from plylab.harness.backends import ExecOptions
    from plylab.harness.plan import single_plan
    from plylab.harness.runner import run_plan

    store = tmp_path / "s.sqlite"
    run_plan(
        single_plan(chaos.GAME, "standard", chaos.PLAYER, chaos.OPPONENT, 6, 3, None),
        store,
        options=ExecOptions(),
        progress=False,
    )
    assert chaos.audit(store, games=6, seed=3) == []
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE moves SET action = (SELECT MIN(action) FROM moves) WHERE ply = 2")
        conn.execute("DELETE FROM moves WHERE ply = 1 AND game_id = (SELECT MIN(id) FROM games)")
        conn.execute("DELETE FROM games WHERE id = (SELECT MAX(id) FROM games)")
    problems = chaos.audit(store, games=6, seed=3)
    assert any("missing" in p for p in problems)
    assert any("num_moves" in p for p in problems)
    assert any("orphan" in p for p in problems)
    assert any("ply 2" in p or "ply 3" in p or "returns" in p for p in problems), problems


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_sigkill_and_resume_local(tmp_path: Path) -> None:
    """Five SIGKILLs of a 2-process local run, resumed each time: every game once, all consistent."""
    r = chaos.chaos(
        tmp_path / "chaos.sqlite",
        backend="local",
        workers=2,
        kills=5,
        games=300,
        delay=(0.2, 1.5),
        rng_seed=1,
    )
    assert r.final_code == 0, r.final_out
    assert r.problems == []
    assert r.kills == 5 and r.mid_run_kills >= 3, r
    assert r.strays == 0, "worker processes outlived their killed run"


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    "extra", [("--concurrency", "4"), ("--workers", "2")], ids=["asyncio", "process-pool"]
)
def test_ctrl_c_prints_one_line_and_exits_130(tmp_path: Path, extra: tuple[str, ...]) -> None:
    store = tmp_path / "s.sqlite"
    code, out, err = interrupt_run(store, extra=extra)
    assert_clean_interrupt(store, code, out, err)
