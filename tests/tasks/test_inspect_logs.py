"""`plylab report --from-inspect LOGDIR`: the logs of `inspect eval plylab/game` read back into a
store, so plylab's tables show the games a team ran in inspect, with the figures the log shows."""

from __future__ import annotations

import io
import json
import sqlite3
from contextlib import closing, redirect_stdout
from pathlib import Path

import pytest

from plylab.cli import main
from tests.tasks.test_inspect_game import eval_in_process, played  # also registers the scripted model


@pytest.mark.slow
def test_report_reads_game_logs_back_with_the_logs_figures(tmp_path: Path) -> None:
    from plylab.tasks.logs import import_game_logs

    log = eval_in_process(
        tmp_path / "logs",
        "scripted-nomove/m",
        game="tic_tac_toe",
        opponent="optimal",
        games=2,
        player="on_failure=random",
    )
    assert log.status == "success", log.error
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["report", "--from-inspect", str(tmp_path / "logs"), "--format", "json"]) == 0
    [row] = json.loads(out.getvalue())["matchups"]
    assert row["player"] == "llm:model=scripted-nomove/m,on_failure=random" and row["games"] == 2
    optimal = {s.name: s for s in log.results.scores}["optimal"].metrics
    assert row["optimality"]["rate"] == pytest.approx(optimal["plylab/wilson_rate"].value)
    assert row["optimality"]["low"] == pytest.approx(optimal["plylab/wilson_low"].value)
    assert row["optimality"]["high"] == pytest.approx(optimal["plylab/wilson_high"].value)
    scored = sum(s.scores["ground_truth"].metadata["informative"] for s in log.samples)
    assert row["optimality"]["scored"] == scored > 0

    store = tmp_path / "s.sqlite"
    assert import_game_logs(tmp_path / "logs", store) == (1, 2)
    assert import_game_logs(tmp_path / "logs", store) == (1, 0)  # again: nothing new
    with closing(sqlite3.connect(store)) as conn:
        moves = conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
    assert moves == sum(len(played(s).moves) for s in log.samples)


def test_a_folder_without_game_logs_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["report", "--from-inspect", str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err
    assert "no logs of inspect eval plylab/game in" in err and "Traceback" not in err
    assert main(["report", "--from-inspect", str(tmp_path / "nope")]) == 2
    assert "no folder" in capsys.readouterr().err
