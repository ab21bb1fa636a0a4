"""Hostile world, round three (issue 31, points 4-9): keys never echoed, cells that cannot run
formulas, exports that stay in their folder, one printable-text rule, duplicates by canonical spec,
every typed argument one line, and messages that say what happened."""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
import sqlite3
from pathlib import Path

import pytest

from plylab.cells import cell
from tests.support.cli import run_args

KEY = "sk-test-round-three-0123456789abcdef"


def _one_line(err: str) -> None:
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


# -- point 4: a key is never echoed; a key in base_url's query keeps the run name ------------------


@pytest.mark.parametrize(
    "args",
    [
        ["paper", "run", "table3", "--model", f"openai-api/evil/m,api_key={KEY}"],
        ["clue", "study", "--condition", "baseline", "--model", f"openai-api/evil/m,api_key={KEY}"],
    ],
    ids=["paper", "clue"],
)
def test_a_refused_model_string_never_repeats_its_key(cli, tmp_path: Path, args: list[str]) -> None:
    res = cli(*args, "--store", str(tmp_path / "s.sqlite"))
    assert res.code == 2 and "may not contain ','" in res.err, res.err
    assert KEY not in res.err and KEY[:12] not in res.err and "api_key=[redacted]" in res.err
    _one_line(res.err)


def test_a_key_in_base_urls_query_keeps_the_rest_of_the_run_name() -> None:
    from plylab.harness.plan import Matchup, default_run_name

    player = f"llm:model=openai-api/x/m,base_url=http://h:1/v1?key={KEY}"
    one = Matchup("nim", "standard", player, "random")
    two = Matchup("nim", "standard", player, "mcts")
    names = [default_run_name(m, 0, 1) for m in (one, two)]
    assert names[0].endswith("-vs-random.s0.n1") and names[1].endswith("-vs-mcts.s0.n1"), names
    assert one.key != two.key and one.key.endswith("|random")
    assert all(KEY not in n for n in [*names, one.key, two.key])
    plain = Matchup("nim", "standard", "mcts:sims=10", "random")  # unchanged where nothing is redacted
    assert default_run_name(plain, 3, 4) == "nim.standard.mcts:sims=10-vs-random.s3.n4"
    assert plain.key == "nim|standard|mcts:sims=10|random"


# -- point 5: exported cells cannot run formulas; exports cannot leave their folder ---------------


@pytest.mark.parametrize(
    "text, shown",
    [
        ('=HYPERLINK("http://evil")', '\'=HYPERLINK("http://evil")'),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("-2+3+cmd|x", "'-2+3+cmd|x"),
        ("-0.5", "-0.5"),
        ("-0.1 ±0.2", "-0.1 ±0.2"),
        ("random", "random"),
    ],
)
def test_a_cell_that_a_spreadsheet_would_run_gets_a_leading_quote(text: str, shown: str) -> None:
    assert cell(text) == shown
    assert cell(3) == 3 and cell(None) is None


FORMULA_RUN = '=HYPERLINK("http://evil/","x")'


def test_csv_export_and_report_escape_formula_cells(cli, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("nim", games=2, store=store), "--run", FORMULA_RUN).code == 0
    out = tmp_path / "runs.csv"
    assert cli("export", str(out), "--table", "runs", "--store", str(store)).code == 0
    cells = [c for row in csv.reader(out.open()) for c in row]
    assert "'" + FORMULA_RUN in cells and FORMULA_RUN not in cells
    res = cli("report", "--store", str(store), "--format", "csv", "--by", "game")
    assert res.code == 0, res.err
    every = [c for row in csv.reader(io.StringIO(res.out)) for c in row]
    assert not any(c.startswith(("=", "@", "+")) for c in every), every


def test_every_report_grid_escapes_formula_cells() -> None:
    """The one grid renderer behind `report`, `paper report` and the learning report, plain and grouped."""
    from plylab.analysis.tables import format_grid

    for groups in (None, [("", 1), ("group", 1)]):
        text = format_grid(["run", "=head"], [[FORMULA_RUN, "@x"]], "csv", groups=groups)
        every = [c for row in csv.reader(io.StringIO(text)) for c in row]
        assert "'" + FORMULA_RUN in every and "'@x" in every
        assert not any(c.startswith(("=", "@", "+")) for c in every), every


@pytest.mark.parametrize("name", ["..", ".", "../..", "./."])
def test_an_inspect_export_stays_inside_its_folder(cli, tmp_path: Path, name: str) -> None:
    store = tmp_path / "store" / "s.sqlite"
    store.parent.mkdir()
    assert cli(*run_args("nim", games=2, store=store), "--run", name).code == 0
    out = tmp_path / "store" / "logs"
    res = cli("export", str(out), "--format", "inspect", "--store", str(store))
    assert res.code == 0, res.err
    written = sorted(p for p in (tmp_path).rglob("*.eval"))
    assert written and all(out in p.parents and p.parent != out for p in written), written


# -- point 8: every argument a user can type is one line -------------------------------------------

BAD_BYTES = b"r\xff\xfe".decode("utf-8", "surrogateescape")  # what Python makes of non-UTF-8 argv


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--game", "nim", "--player", "random", "--opponent", "random", "--run", BAD_BYTES],
        ["run", "--game", "nim", "--player", "random", "--opponent", "random", "--store", BAD_BYTES],
        ["run", "--config", BAD_BYTES],
        ["export", BAD_BYTES + ".csv"],
        ["clue", "report", "--store", BAD_BYTES],
    ],
    ids=["run", "store", "config", "export", "clue-report"],
)
def test_an_argument_that_is_not_utf8_is_one_line(cli, tmp_path: Path, args: list[str]) -> None:
    res = cli(*args)
    assert res.code == 2 and "is not UTF-8 text" in res.err and "\\udcff" in res.err, res.err
    _one_line(res.err)


@pytest.mark.parametrize(
    "args, needle",
    [
        (["report", "--store", "a" * 131_000], "File name too long"),
        (
            [
                "run",
                "--game",
                "nim",
                "--player",
                "random",
                "--opponent",
                "random",
                "--store",
                "s/" * 2000 + "x",
            ],
            "",
        ),
        (["export", "b" * 131_000 + ".csv"], "(131,004 characters)"),
    ],
    ids=["long-store", "deep-store", "long-export"],
)
def test_a_path_the_system_refuses_is_one_line(cli, tmp_path: Path, monkeypatch, args, needle) -> None:
    monkeypatch.chdir(tmp_path)
    if args[0] == "export":
        assert cli(*run_args("nim", games=1, store=tmp_path / "plylab.sqlite")).code == 0
        args = [*args, "--store", str(tmp_path / "plylab.sqlite")]
    res = cli(*args)
    assert res.code == 2 and needle in res.err, res.err[-300:]
    _one_line(res.err)
    assert len(res.err) < 1000


def test_a_negative_nim_pile_is_refused_by_run_and_solve(cli, tmp_path: Path) -> None:
    game = "nim:pile_sizes=-1;2"
    for args in (run_args(game, games=2, store=tmp_path / "s.sqlite"), ["solve", "--game", game]):
        res = cli(*args)
        assert res.code == 2 and "a pile size may not be negative" in res.err, res.err
        _one_line(res.err)
    assert not (tmp_path / "s.sqlite").exists()


@pytest.mark.parametrize("command", [["paper", "run", "table2"], ["clue", "study", "--condition", "matrix"]])
def test_an_empty_model_is_refused(cli, tmp_path: Path, command: list[str]) -> None:
    res = cli(*command, "--model", " ", "--store", str(tmp_path / "s.sqlite"))
    assert res.code == 2 and "--model is empty" in res.err, (res.code, res.err)
    assert not (tmp_path / "s.sqlite").exists()


def test_a_learning_forecast_counts_and_does_not_enumerate(cli, tmp_path: Path) -> None:
    """10^12 phases: before, the forecast never returned (339 MB and rising at 120 s)."""
    args = ["learn", "--game", "tic_tac_toe", "--player", "reaper:model=local", "--opponent", "random"]
    res = cli(
        *args, "--runs", "1000000", "--epochs", "1000000", "--store", str(tmp_path / "s.sqlite"), "--dry-run"
    )
    assert res.code == 0, res.err
    assert "70,000,050,000,000 games to play" in res.out + res.err, res
    res = cli("paper", "run", "fig5", "--model", "local", "--runs", "10000", "--epochs", "1000", "--dry-run")
    assert res.code == 0 and (res.out + res.err).count("games to play") == 3, res


def test_planned_games_and_phase_names_match_the_phases() -> None:
    from plylab.learning.schedule import Experiment, phase_of, planned_games, run_phases

    for reference in (None, "random"):
        for epochs in (0, 1, 3):
            exp = Experiment(
                "nim",
                "standard",
                "reaper:model=local",
                "random",
                runs=2,
                epochs=epochs,
                learn_games=3,
                eval_games=5,
                reference=reference,
            )
            phases = [p for r in range(exp.runs) for p in run_phases(exp, r)]
            assert sum(planned_games(exp)) == sum(p.games for p in phases)
            assert all(phase_of(exp, p.store_run(exp)) == p for p in phases)
            for other in (
                "run2/eval0",
                f"run0/eval{epochs + 1}",
                "run0/learn0",
                "run0/evalx",
                "run0/reference1",
            ):
                assert phase_of(exp, f"{exp.label}/{other}") is None
            assert phase_of(exp, "another/run0/eval0") is None


# -- point 9: messages that say what happened --------------------------------------------------------


def test_a_report_written_to_a_folder_it_cannot_use_does_not_speak_of_space(cli, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("nim", games=2, store=store)).code == 0
    res = cli("report", "--store", str(store), "--latex", "/proc/plylab-none/t.tex")
    assert res.code == 2 and "free space" not in res.err and "choose a folder you can write to" in res.err
    _one_line(res.err)


# -- point 6: every line plylab writes is printable text ----------------------------------------------

HOSTILE_NAME = "r\x1b]0;pwned\x07\x9b31m\r\nfake line\u202eevil"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")  # any control but \n and \t


@pytest.mark.parametrize(
    "args",
    [
        run_args("nim", games=1, store="STORE"),
        [*run_args("nim", games=1, store="STORE"), "--dry-run"],
        [
            "learn",
            "--game",
            "nim",
            "--player",
            "reaper:model=local",
            "--opponent",
            "random",
            "--store",
            "STORE",
            "--runs",
            "1",
            "--epochs",
            "1",
            "--dry-run",
        ],
        ["paper", "run", "table2", "--model", "local", "--store", "STORE", "--dry-run", "--games", "2"],
    ],
    ids=["run", "run-dry", "learn-dry", "paper-dry"],
)
def test_a_run_names_escape_sequences_never_reach_the_terminal(cli, tmp_path: Path, args: list[str]) -> None:
    args = [str(tmp_path / "s.sqlite") if a == "STORE" else a for a in args]
    res = cli(*args, "--run", HOSTILE_NAME)
    assert res.code == 0, res.err
    for text in (res.out, res.err):
        assert not RAW.search(text), repr(text)
        assert all("fake line" not in line or "\\r\\n" in line for line in text.splitlines()), repr(text)
    assert "\\x1b]0;pwned" in res.out + res.err


# -- point 7: the same player spelled twice is refused once; a YAML key twice is refused -------------


@pytest.mark.parametrize(
    "players, games, needle",
    [
        (
            ["mcts:sims=1000,solve=true", "mcts:solve=True,sims=1000"],
            ["nim"],
            "mcts:sims=1000 vs random twice",
        ),
        (["optimal", "optimal:epsilon=0"], ["nim"], "optimal vs random twice"),
        (["random"], ["nim", "nim:pile_sizes=1;3;5;7"], "nim/standard random vs random twice"),
    ],
    ids=["mcts", "optimal", "game"],
)
def test_one_player_spelled_twice_is_refused(cli, tmp_path: Path, players, games, needle) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(f"games: {json.dumps(games)}\nplayers: {json.dumps(players)}\nopponents: [random]\n")
    store = tmp_path / "s.sqlite"
    res = cli("run", "--config", str(plan), "--store", str(store), "--games", "2", "--quiet")
    assert res.code == 2 and needle in res.err, res.err
    _one_line(res.err)
    assert not store.exists()


@pytest.mark.parametrize(
    "text, key",
    [
        ("games: [nim]\ngames: [tic_tac_toe]\nplayers: [random]\nopponents: [random]\n", "games"),
        ("games: [nim]\nplayers: [random]\nopponents: [random]\nformulations: {nim: [a], nim: [b]}\n", "nim"),
    ],
)
def test_a_yaml_key_given_twice_is_refused(cli, tmp_path: Path, text: str, key: str) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(text)
    store = tmp_path / "s.sqlite"
    res = cli("run", "--config", str(plan), "--store", str(store), "--quiet")
    assert res.code == 2 and f"sets '{key}' twice" in res.err, res.err
    _one_line(res.err)
    assert not store.exists()


def test_a_yaml_merge_key_is_not_a_duplicate() -> None:
    from plylab.harness.plan import _duplicate_key, yaml

    node = yaml.compose("a: &x {p: 1}\nb:\n  <<: *x\n  <<: *x\n  q: 2\n")
    assert _duplicate_key(node) is None
    assert _duplicate_key(yaml.compose("a: 1\nb: {c: 1, c: 2}\n")) == "c"


def _sqlite_error(tmp_path: Path, kind: str) -> sqlite3.DatabaseError:
    """A real SQLite error of `kind`: a disk that fills (a page limit), or a read-only database."""
    path = tmp_path / f"{kind}.sqlite"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.commit()
    uri = f"file:{path}?mode=ro" if kind == "readonly" else str(path)
    conn = sqlite3.connect(uri, uri=kind == "readonly")
    try:
        if kind == "full":
            conn.execute("PRAGMA max_page_count = 2")
            conn.execute("INSERT INTO t SELECT zeroblob(100000)")
        else:
            conn.execute("INSERT INTO t VALUES (1)")
    except sqlite3.DatabaseError as exc:
        return exc
    finally:
        conn.close()
    raise AssertionError(f"no {kind} error")


def test_a_store_that_cannot_be_written_says_why(tmp_path: Path) -> None:
    from plylab.harness.store import open_failure

    full = str(open_failure(tmp_path / "s.sqlite", _sqlite_error(tmp_path, "full")))
    assert "the disk is full" in full and "not a readable" not in full and "free space" in full
    ro = str(open_failure(tmp_path / "s.sqlite", _sqlite_error(tmp_path, "readonly")))
    assert "is read-only" in ro and "not a readable" not in ro
    broken = str(open_failure(tmp_path / "s.sqlite", sqlite3.DatabaseError("file is not a database")))
    assert "not a readable plylab store" in broken


def test_quoted_report_line_after_a_paper_run(cli, tmp_path: Path) -> None:
    store = tmp_path / "my store; rm -rf ~" / "s.sqlite"
    store.parent.mkdir()
    res = cli("paper", "run", "table7", "--references", "--games", "2", "--store", str(store), "--quiet")
    assert res.code == 0, res.err
    (line,) = [x for x in res.out.splitlines() if x.startswith("report: ")]
    command = line.removeprefix("report: ").split("  (deviations:")[0]
    assert shlex.split(command) == ["plylab", "paper", "report", "table7", "--store", str(store)]
