"""The store is the only SQL reader and writer of `runs`, `games` and `moves`; readers get typed rows."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import sqlite3
from pathlib import Path

import pytest

from plylab.harness.plan import single_plan
from plylab.harness.rows import GameRow, GameTotals, ListedGame, MatchupCount, MoveRow, OutcomeCount, RunRow
from plylab.harness.runner import run_plan
from plylab.harness.session import play_game
from plylab.harness.store import Store

SRC = Path(__file__).resolve().parents[2] / "src" / "plylab"
# Modules that own SQL against these tables: the store itself, and its module for texts stored once
# (harness/text_homes.py: the moves that hold a text, and the trigger that hands it back). The response
# cache and the ground floor's `texts` table have none: the cache reads a text at home through the
# store's reader. Clue games are stored here too.
OWNERS = {"harness/store.py", "harness/frames.py", "harness/text_homes.py"}  # the store and its read frames
SQL_ON_CORE_TABLES = re.compile(
    r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE(?: IF NOT EXISTS)?)\s+"
    r"(?:games|moves|runs|run_leases|clue_runs|clue_games|clue_turns|clue_knowledge)\b"
)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    path = tmp_path_factory.mktemp("rows") / "s.sqlite"
    run_plan(single_plan("tic_tac_toe", "standard", "random", "optimal", 2, 0, "r"), path, progress=False)
    return Store(path, create=False)


def test_readers_return_frozen_typed_rows(store: Store) -> None:
    [run] = store.runs()
    assert isinstance(run, RunRow) and run.name == "r" and run.status == "finished"
    games = store.games([run.id])
    assert len(games) == 2 and all(isinstance(g, GameRow) for g in games)
    for g in games:
        moves = store.moves(g.id)
        assert all(isinstance(m, MoveRow) for m in moves) and len(moves) == g.num_moves
        assert [m.ply for m in moves] == list(range(g.num_moves))
        assert store.moves_for_games([g.id]) == {g.id: moves}
    with pytest.raises(dataclasses.FrozenInstanceError):
        games[0].outcome = "win"  # type: ignore[misc]


def test_a_move_reads_back_as_the_session_made_it(tmp_path: Path) -> None:
    """A move has one shape: the session's record of a played game and the store's reading of it
    are the same `MoveRow`s, field for field (grades, values and legal moves as the JSON stored)."""
    [job] = single_plan("tic_tac_toe", "standard", "random", "optimal", 1, 3, None).jobs()
    rec = asyncio.run(play_game(job))
    store = Store(tmp_path / "s.sqlite")
    assert store.save_game(store.open_run("r", 0, {}), rec)
    [game] = store.games()
    assert all(isinstance(m, MoveRow) for m in rec.moves) and any(m.grade for m in rec.moves)
    assert store.moves(game.id) == rec.moves


def test_aggregate_readers_agree_with_the_rows(store: Store) -> None:
    [run] = store.runs()
    games = store.games([run.id])
    totals = list(store.frame([run.id]).game_totals())
    assert all(isinstance(t, GameTotals) for t in totals)
    assert [(t.id, t.outcome) for t in totals] == [(g.id, g.outcome) for g in games]
    for t, g in zip(totals, games, strict=True):  # the random player's own moves: every other ply
        mine = [m for m in store.moves(g.id) if m.seat == g.player_seat]
        assert t.player_moves == len(mine) and t.scored == sum(m.informative == 1 for m in mine)
    listed = list(store.listed_games(run.id))
    assert all(isinstance(g, ListedGame) for g in listed)
    assert sorted(g.nth for g in listed) == [1, 1]  # one game per seat
    [count] = store.frame([run.id]).matchup_counts()
    assert isinstance(count, MatchupCount) and count.games == 2
    assert count.moves == sum(g.num_moves for g in games)
    outcomes = store.frame([run.id]).outcome_counts()
    assert all(isinstance(o, OutcomeCount) for o in outcomes) and sum(o.n for o in outcomes) == 2
    assert store.games_by_id([g.id for g in games]) == games


def test_an_older_store_without_optional_columns_reads_with_defaults(tmp_path: Path) -> None:
    """A store with only the columns plylab requires (older versions wrote fewer) still gives rows."""
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(
        """CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT, kind TEXT, seed INTEGER, plan TEXT, status TEXT);
        CREATE TABLE games (id INTEGER PRIMARY KEY, run_id INTEGER, job_key TEXT, game TEXT, player TEXT,
                            opponent TEXT, outcome TEXT);
        CREATE TABLE moves (game_id INTEGER, ply INTEGER, seat INTEGER, action INTEGER);
        INSERT INTO runs VALUES (1, 'old', 'play', 0, '{}', 'finished');
        INSERT INTO games VALUES (1, 1, 'k', 'tic_tac_toe', 'random', 'optimal', 'win');
        INSERT INTO moves VALUES (1, 0, 0, 4);"""
    )
    conn.commit()
    conn.close()
    s = Store(path, create=False)
    try:
        assert s.runs("old")[0].created == 0.0
        [g] = s.games()
        assert (g.formulation, g.player_seat, g.failure_kind) == ("standard", 0, None)
        [m] = s.moves(g.id)
        assert (m.action, m.calls, m.reply, m.attempts) == (4, 0, None, None)
    finally:
        s.close()


def _offenders() -> list[str]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel in OWNERS:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if SQL_ON_CORE_TABLES.search(line):
                out.append(f"{rel}:{n}: {line.strip()}")
    return out


def test_the_check_sees_sql_on_the_core_tables() -> None:
    """The grep below is only worth something if it finds such SQL where it is (the store)."""
    assert SQL_ON_CORE_TABLES.search('"SELECT COUNT(*) FROM games g JOIN runs r ON r.id = g.run_id"')
    assert SQL_ON_CORE_TABLES.search("UPDATE runs SET status=?")
    assert SQL_ON_CORE_TABLES.search("SELECT * FROM clue_turns WHERE game_id = ?")
    assert not SQL_ON_CORE_TABLES.search("matchup rows from games played")  # prose is not SQL
    assert len(SQL_ON_CORE_TABLES.findall((SRC / "harness" / "store.py").read_text())) > 10


def test_no_module_but_the_store_writes_sql_against_runs_games_or_moves() -> None:
    assert _offenders() == [], (
        "query through plylab.harness.store.Store and its frames (harness/frames.py; typed rows in harness/rows.py)"
    )


def test_the_connection_stays_inside_the_store() -> None:
    """No reader is handed the store's connection (issue 26): outside the store's own modules nothing
    reaches for `.conn` or `._conn` of a Store, and the Store has no public connection."""
    assert not hasattr(Store, "conn")
    reach = re.compile(r"\b(?:store|_store|writer|view)\.(?:_?conn)\b")
    found = [
        f"{p.relative_to(SRC)}:{n}"
        for p in sorted(SRC.rglob("*.py"))
        if str(p.relative_to(SRC)) not in OWNERS
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if reach.search(line)
    ]
    assert found == []


def test_analysis_and_reports_open_no_sqlite_file_themselves() -> None:
    """Analysis and reports read every file through its store: the results store's typed readers,
    REAPER's memory through players/reaper/memory.py (its update log: `update_log`)."""
    found = [
        p.relative_to(SRC).as_posix()
        for folder in ("analysis", "reports")
        for p in sorted((SRC / folder).rglob("*.py"))
        if re.search(r"\bsqlite3\b", p.read_text())
    ]
    assert found == []
