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
    """gnubg 1.07's analysis thresholds (0.03 / 0.06 / 0.12; `show analysis`, checked against gnubg in
    tests/oracles/test_gnubg.py)."""
    assert [skill(e) for e in (0.0, 0.03, 0.031, 0.06, 0.061, 0.12, 0.121)] == [
        "",
        "",
        "doubtful",
        "doubtful",
        "bad",
        "bad",
        "very bad",
    ]


@pytest.mark.slow
@pytest.mark.skipif(gnubg_path() is None, reason="gnubg is not installed (make engines)")
def test_report_gives_error_per_decision_pr_and_marks(cli, tmp_path: Path) -> None:
    """Per turn, as gnubg counts: a double's two halves one decision (their errors added), unforced
    where the turn has more than one play; graded at the opt-in 0-ply level (a twenty-fifth of the cost)."""
    store = str(tmp_path / "s.sqlite")
    r = cli("run", "--game", "backgammon", "--player", "random", "--opponent", "random", "--games", "1",
            "--score", "plies=0", "--store", store, "--quiet")  # fmt: skip
    assert r.code == 0, r.err
    s = Store(store, create=False)
    try:
        (row,) = backgammon_rows(s)
        (run,) = s.runs(None)
        assert not choices(
            s, run.id, s.frame([run.id]).matchup_counts()
        ).chess  # an engine's, but no lichess columns
        grades = [
            Grade.from_json(m.grade)
            for m in s.frame(r.id for r in s.runs(None)).gnubg_moves()
            if m.seat == m.player_seat
        ]
    finally:
        s.close()
    halves = [g for g in grades if g.detail.get("half") == 2]
    turns = [g for g in grades if g.detail.get("half") != 2]
    assert halves and row.games == 1 and row.decisions == len(turns) == len(grades) - len(halves)
    unforced = [g for g in turns if g.detail["plays"] > 1]
    assert 0 < row.unforced == len(unforced) < row.decisions  # a forced or single play is not counted
    total = sum(g.loss(int(g.detail["play"])) for g in grades)  # a forced play loses nothing
    assert row.pr == pytest.approx(500 * total / len(unforced))
    assert row.millipoints_per_decision == pytest.approx(1000 * total / len(turns))
    assert (
        0 < row.very_bad <= row.bad + row.very_bad + row.doubtful <= row.unforced
    )  # a random player blunders
    assert row.level.startswith("every play at 0 plies")
    report = cli("report", "--store", store, "--format", "json")
    assert report.code == 0, report.err
    assert json.loads(report.out)["backgammon"][0]["pr"] == pytest.approx(row.pr)
    text = cli("report", "--store", store, "--format", "markdown")
    assert "level: every play at 0 plies (gnubg's nets alone" in text.out and "0.03 / 0.06 / 0.12" in text.out


def test_the_report_states_the_default_level() -> None:
    """A grade at the default level is reported as gnubg's default analysis level, in words."""
    from plylab.analysis.backgammon import BackgammonRow, _level, backgammon_table
    from plylab.oracles.gnubg import ANALYSIS

    grade = Grade(
        {0: 0.1, 1: 0.0}, unit="payoff", span=2.0, exact=False, detail={"play": 1, "level": ANALYSIS.text()}
    )
    row = BackgammonRow("r", "backgammon", "standard", "random", "random", level=_level(grade))
    notes = backgammon_table([row]).notes
    assert (
        "level: 2-ply with gnubg's 'large' move filter (gnubg's default analysis level): every play at 0 plies, "
        "up to 16 within 0.32 of the best then at 2 plies, and the play made always at 2 plies too" in notes
    )


@pytest.mark.slow
@pytest.mark.skipif(gnubg_path() is None, reason="gnubg is not installed (make engines)")
def test_an_engine_given_up_by_an_earlier_run_in_the_process_grades_the_next_run(cli, tmp_path: Path) -> None:
    """The give-up rule is a run's: a gnubg an earlier run of this process gave up on (a stuck one,
    a test's) is tried afresh by the next run, whose games are graded, not left without a try."""
    from plylab.oracles.engine_process import give_up

    give_up("gnubg", str(gnubg_path()), 3, "an earlier run's stuck gnubg")
    store = str(tmp_path / "s.sqlite")
    r = cli("run", "--game", "backgammon", "--player", "random", "--opponent", "random", "--games", "1",
            "--score", "plies=0", "--store", store, "--quiet")  # fmt: skip
    assert r.code == 0, r.err
    s = Store(store, create=False)
    try:
        (row,) = backgammon_rows(s)
        assert row.decisions > 0
    finally:
        s.close()
