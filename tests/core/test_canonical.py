"""One name per player: the canonical spec rule, applied when games are stored and when older
stores are read, and ratings per game unless pooling is asked for."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from plylab.analysis.metrics import matchup_results
from plylab.analysis.ratings import POOLED, ratings_by_game
from plylab.cli import main
from plylab.harness.store import Store
from plylab.players.canonical import canonical_spec
from plylab.reports.data import rating_results
from tests.support.cli import run_args


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("mcts:sims=1000", "mcts:sims=1000"),
        ("mcts:sims=1000,solve=true", "mcts:sims=1000"),  # the two rows for one player
        ("mcts:solve=True, sims=1000", "mcts:sims=1000"),
        ("mcts:uct_c=3,solve=false", "mcts:solve=false,uct_c=3.0"),  # sorted, one spelling per value
        ("llm:output=enum,model=local,effort=high", "llm:model=local,output=enum"),
        ("llm:model=local,on_failure=retry:3", "llm:model=local,on_failure=retry:3"),
        ("optimal", "optimal"),
        ("clue-matrix:z=1,a=2", "clue-matrix:a=2,z=1"),  # not a two-player player: keys sorted only
        (
            "llm:output=json,base_url=http://h:1/v1,model=openai-api/s/m",
            "llm:model=openai-api/s/m,base_url=http://h:1/v1,output=json",
        ),
        ("llm", "llm:model=local"),  # `model` is always written, and first
    ],
)
def test_one_rule_gives_one_spelling(given: str, canonical: str) -> None:
    assert canonical_spec(given) == canonical
    assert canonical_spec(canonical) == canonical  # the rule is idempotent


def test_stored_and_older_spellings_are_one_player_and_ratings_are_per_game(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    for spec, run in (("mcts:sims=20,solve=true", "a"), ("mcts:sims=20", "b")):
        assert main([*run_args("tic_tac_toe", spec, "random", games=2, store=store), "--run", run]) == 0
    assert main([*run_args("nim", "random", "optimal", games=2, store=store), "--run", "c"]) == 0
    with sqlite3.connect(store) as conn:
        assert {r[0] for r in conn.execute("SELECT player FROM games WHERE game = 'tic_tac_toe'")} == {
            "mcts:sims=20"
        }, "games are stored under the canonical name"
        # an older store kept the spelling it was given: simulate one
        conn.execute("UPDATE games SET player = 'mcts:solve=true,sims=20' WHERE run_id = 1")
        conn.execute("UPDATE moves SET player = 'mcts:solve=true,sims=20' WHERE player = 'mcts:sims=20'")
    s = Store(store, create=False)
    try:
        rows = matchup_results(s)
        results = rating_results(s, [r.id for r in s.runs()])
        # the store names them once for every reader; its matchup keys keep each stored spelling
        ids = [r.id for r in s.runs()]
        assert {g.player for g in s.games() if g.game == "tic_tac_toe"} == {"mcts:sims=20"}
        assert {m.player for m in s.moves(s.games()[0].id) if m.player.startswith("mcts")} == {"mcts:sims=20"}
        assert {m.player for m in s.frame(ids).matchup_counts() if m.game == "tic_tac_toe"} == {
            "mcts:solve=true,sims=20",
            "mcts:sims=20",
        }
    finally:
        s.close()
    assert {r.player for r in rows if r.game == "tic_tac_toe"} == {"mcts:sims=20"}
    per_game = ratings_by_game(results)
    assert set(per_game) == {"tic_tac_toe", "nim"}, "no pooled table unless asked"
    assert [r.player for r in per_game["tic_tac_toe"]].count("mcts:sims=20") == 1
    pooled = ratings_by_game(results, pooled=True)
    assert list(pooled)[0] == POOLED and set(pooled) == {POOLED, "tic_tac_toe", "nim"}
