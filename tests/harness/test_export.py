import csv

import pyarrow.parquet as pq

from tests.support.cli import run_args


def test_export_games_and_moves(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("nim", "random", "optimal", games=3, store=store)).code == 0
    res = cli("export", str(tmp_path / "g.csv"), "--store", str(store))
    assert res.code == 0 and "wrote 3 games" in res.out
    rows = list(csv.DictReader(open(tmp_path / "g.csv")))
    assert len(rows) == 3 and {r["outcome"] for r in rows} <= {"win", "loss"}
    res = cli("export", str(tmp_path / "m.parquet"), "--store", str(store), "--table", "moves")
    assert res.code == 0
    moves = pq.read_table(tmp_path / "m.parquet").to_pydict()
    assert len(moves["ply"]) > 3 and set(moves["game"]) == {"nim"}
    bad = cli("export", str(tmp_path / "x.xlsx"), "--store", str(store))
    assert bad.code == 2 and "unknown export format 'xlsx'" in bad.err
