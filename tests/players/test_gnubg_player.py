"""The gnubg player: gnubg's best play at its named level, and one clear line for a level it lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from plylab.analysis.backgammon import backgammon_rows
from plylab.harness.store import Store
from plylab.oracles.gnubg import gnubg_path

pytestmark = pytest.mark.skipif(gnubg_path() is None, reason="gnubg is not installed (make engines)")


def test_expert_plays_what_the_grader_values_best(cli, tmp_path: Path) -> None:
    """At `expert` gnubg plays at the level backgammon is graded at: no equity lost on any decision."""
    store = str(tmp_path / "s.sqlite")
    r = cli("run", "--game", "backgammon", "--player", "gnubg", "--opponent", "random", "--games", "1",
            "--store", store, "--quiet")  # fmt: skip
    assert r.code == 0, r.err
    s = Store(store, create=False)
    try:
        (row,) = backgammon_rows(s)
    finally:
        s.close()
    assert row.player == "gnubg" and row.unforced > 10
    assert row.error == pytest.approx(0.0, abs=1e-9) and row.pr == pytest.approx(0.0, abs=1e-6)


def test_an_unknown_level_is_one_line(cli) -> None:
    r = cli(
        "run",
        "--game",
        "backgammon",
        "--player",
        "gnubg:level=beginner",
        "--opponent",
        "random",
        "--games",
        "1",
    )
    assert r.code == 2 and "level" in r.err and "expert" in r.err and "Traceback" not in r.err
