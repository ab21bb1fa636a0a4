"""Hostile world, round three (issue 31, points 4-9): keys never echoed, cells that cannot run
formulas, exports that stay in their folder, one printable-text rule, duplicates by canonical spec,
every typed argument one line, and messages that say what happened."""

from __future__ import annotations

import csv
import io
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
