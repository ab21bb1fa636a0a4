"""Backgammon's report figures (error per decision, PR, gnubg's marks) from a real run graded by gnubg."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plylab.analysis.backgammon import backgammon_rows, skill
from plylab.harness.store import Store
from plylab.oracles.gnubg import gnubg_path
from plylab.oracles.graded import Grade
from plylab.reports.gamelist import choices


def test_gnubgs_thresholds_mark_an_error_above_each() -> None:
    assert [skill(e) for e in (0.0, 0.04, 0.041, 0.08, 0.081, 0.16, 0.161)] == [
        "",
        "",
        "doubtful",
        "doubtful",
        "bad",
        "bad",
        "very bad",
    ]


@pytest.mark.skipif(gnubg_path() is None, reason="gnubg is not installed (make engines)")
def test_report_gives_error_per_decision_pr_and_marks(cli, tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    r = cli("run", "--game", "backgammon", "--player", "random", "--opponent", "random", "--games", "1",
            "--store", store, "--quiet")  # fmt: skip
    assert r.code == 0, r.err
    s = Store(store, create=False)
    try:
        (row,) = backgammon_rows(s)
        (run,) = s.runs(None)
        assert not choices(s, run.id, s.matchup_counts([run.id])).chess  # an engine's, but no lichess columns
        grades = [
            Grade.from_json(m.grade)
            for m in s.gnubg_moves(r.id for r in s.runs(None))
            if m.seat == m.player_seat
        ]
    finally:
        s.close()
    assert row.games == 1 and row.decisions == len(grades)
    unforced = [g for g in grades if g.informative]
    assert 0 < row.unforced == len(unforced) < row.decisions  # a forced or single play is not counted
    errors = [g.loss(int(g.detail["play"])) for g in unforced]
    assert row.pr == pytest.approx(500 * sum(errors) / len(errors))
    assert row.millipoints_per_decision == pytest.approx(1000 * sum(errors) / len(grades))
    assert row.very_bad == sum(e > 0.16 for e in errors) > 0  # a random player blunders
    report = cli("report", "--store", store, "--format", "json")
    assert report.code == 0, report.err
    assert json.loads(report.out)["backgammon"][0]["pr"] == pytest.approx(row.pr)
