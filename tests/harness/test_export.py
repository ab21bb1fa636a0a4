import csv
import json

import pyarrow.parquet as pq

from plylab.games import get_game
from tests.support.cli import run_args


def test_export_games_and_moves(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("nim", "random", "optimal", games=3, store=store)).code == 0
    res = cli("export", str(tmp_path / "g.csv"), "--store", str(store))
    assert res.code == 0 and "wrote 3 games" in res.out
    rows = list(csv.DictReader(open(tmp_path / "g.csv")))
    res = cli("export", str(tmp_path / "m.parquet"), "--store", str(store), "--table", "moves")
    assert res.code == 0
    moves = pq.read_table(tmp_path / "m.parquet").to_pylist()
    assert len(rows) == 3 and {m["game"] for m in moves} == {"nim"}
    # The two files agree with each other and with the rules: each game's exported moves, replayed
    # in OpenSpiel, end where the games file says, with its returns and the player's outcome.
    for row in rows:
        mine = sorted((m for m in moves if m["job_key"] == row["job_key"]), key=lambda m: m["ply"])
        assert [m["ply"] for m in mine] == list(range(int(row["num_moves"])))
        state = get_game("nim").replay([m["action"] for m in mine])
        assert state.is_terminal() and state.returns() == json.loads(row["returns"])
        mover = int(row["player_seat"])
        assert row["outcome"] == ("win" if state.returns()[mover] > 0 else "loss")
    bad = cli("export", str(tmp_path / "x.xlsx"), "--store", str(store))
    assert bad.code == 2 and "unknown export format 'xlsx'" in bad.err
