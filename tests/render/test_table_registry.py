"""Adding a table is one module: a builder from a store to a typed `Table`, registered by name, and
drawn by `plylab.render.table.render` in every format plylab writes. The toy table here counts a
real store's outcomes per player, under a two-level header, with a note."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from plylab.cli import main
from plylab.errors import UserError
from plylab.harness.store import Store
from plylab.render.table import FORMATS, TABLE_DEFS, Table, get_table, register_table, render


# --8<-- [start:table]
@dataclass(frozen=True)
class ToySource:
    store: Store


def toy_outcomes(source: ToySource) -> Table:
    """W D L per player, with the games they come from."""
    runs = [r.id for r in source.store.runs()]
    counts: dict[str, dict[str, int]] = {}
    for g in source.store.frame(runs).game_totals():
        row = counts.setdefault(g.player, {"win": 0, "draw": 0, "loss": 0, "failure": 0})
        row[g.outcome] += 1
    body = [
        [p, *(str(c[k]) for k in ("win", "draw", "loss")), str(sum(c.values()))] for p, c in counts.items()
    ]
    return Table(
        ["player", "W", "D", "L", "games"],
        body,
        groups=[("", 1), ("outcome", 3), ("", 1)],
        notes=["a toy table: outcomes from the player's side"],
        title="toy outcomes",
    )


# --8<-- [end:table]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("toy") / "s.sqlite"
    args = ["run", "--game", "tic_tac_toe", "--player", "random", "--opponent", "optimal", "--games", "2"]
    assert main([*args, "--seed", "3", "--store", str(path), "--quiet"]) == 0
    if "toy-outcomes" not in TABLE_DEFS:
        register_table("toy-outcomes", "outcomes per player (a test's toy)")(toy_outcomes)
    return path


def built(path: Path) -> Table:
    s = Store(path, create=False)
    try:
        return get_table("toy-outcomes").build(ToySource(s))
    finally:
        s.close()


def test_the_toy_table_is_in_the_registry_beside_the_reports(store: Path) -> None:
    assert {"toy-outcomes", "matchups", "outcomes", "optimality"} <= set(TABLE_DEFS.names())
    assert get_table("toy-outcomes").about == "outcomes per player (a test's toy)"
    with pytest.raises(UserError, match="unknown table 'nope'"):
        get_table("nope")


def test_the_toy_table_renders_in_every_format(store: Path) -> None:
    table = built(store)
    assert [r[0] for r in table.rows] == ["random"] and table.rows[0][-1] == "2"
    assert set(FORMATS) == {"table", "markdown", "csv", "latex", "json", "html"}
    out = {fmt: render(table, fmt) for fmt in FORMATS}
    w, d, loss = table.rows[0][1:4]
    assert int(w) + int(d) + int(loss) == 2
    assert "outcome" in out["table"] and "random" in out["table"] and "a toy table" in out["table"]
    assert out["markdown"].startswith("| player | outcome |") and "- a toy table" in out["markdown"]
    rows = list(csv.reader(io.StringIO(out["csv"])))
    assert rows[0][:2] == ["player", "outcome"] and rows[1][1:4] == ["W", "D", "L"]
    assert rows[2] == ["random", w, d, loss, "2"]
    assert r"\multicolumn{3}{c}{outcome}" in out["latex"] and r"\toprule" in out["latex"]
    assert "% a toy table" in out["latex"]
    data = json.loads(out["json"])
    assert data["columns"] == ["player", "W", "D", "L", "games"] and data["rows"] == [
        ["random", w, d, loss, "2"]
    ]
    assert data["groups"] == [["", 1], ["outcome", 3], ["", 1]]
    assert "<th colspan=3>outcome</th>" in out["html"] and "<td>random</td>" in out["html"]
    with pytest.raises(UserError, match="unknown format 'pdf'"):
        render(table, "pdf")


def test_a_report_table_is_an_entry_of_the_same_registry(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`plylab report --table matchups` draws the registry's entry: the same text as rendering it here."""
    from plylab.analysis.report_source import ReportSource

    s = Store(store, create=False)
    try:
        table = get_table("matchups").build(ReportSource(s))
    finally:
        s.close()
    capsys.readouterr()
    assert main(["report", "--store", str(store), "--format", "csv"]) == 0
    assert capsys.readouterr().out == render(table, "csv") + "\n"
    assert table.rows[0][2:4] == ["random", "optimal"]


def test_the_papers_and_clues_tables_are_entries_too(capsys: pytest.CaptureFixture[str]) -> None:
    """Without a store a paper table is the published numbers alone; `plylab paper report` prints the
    entry's grid under its comment lines."""
    from plylab.paper.report import PaperSource

    table = get_table("table2").build(PaperSource(None))
    clue = get_table("clue-accuracy").build(None)
    assert table.rows[0][:2] == ["GPT-5 nano", "paper"] and clue.rows
    for name, t in (("table2", table), ("clue-accuracy", clue)):
        capsys.readouterr()
        assert main(["paper", "report", name, "--format", "csv"]) == 0
        assert render(t, "csv") in capsys.readouterr().out
