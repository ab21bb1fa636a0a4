"""Stockfish and Fairy-Stockfish as players: reproducible at a node count, Elo-limited on the
engine's scale, and one line where the engine is missing (chess then plays unscored)."""

from __future__ import annotations

import sqlite3

import pytest

from plylab.oracles import engine as engine_mod
from tests.support.engines import needs_fairy, needs_stockfish


def _moves(store) -> list[tuple[int, int, int]]:
    return sqlite3.connect(store).execute("SELECT g.idx, m.ply, m.action FROM moves m JOIN games g ON g.id = m.game_id ORDER BY g.idx, m.ply").fetchall()  # fmt: skip


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
@needs_stockfish
def test_an_unlimited_engine_plays_the_same_games_twice(cli, tmp_path) -> None:
    stores = [tmp_path / "a.sqlite", tmp_path / "b.sqlite"]
    for store in stores:
        done = cli("run", "--game", "chess", "--player", "stockfish:nodes=300", "--opponent", "random",
                   "--games", "2", "--score", "off", "--store", str(store), "--quiet")  # fmt: skip
        assert done.code == 0, done.err
    assert _moves(stores[0]) == _moves(stores[1]) and len(_moves(stores[0])) > 10


@pytest.mark.slow
@needs_stockfish
def test_an_elo_below_the_engines_floor_plays_at_the_floor_and_says_so(cli, tmp_path) -> None:
    done = cli("run", "--game", "chess", "--player", "stockfish:elo=1320,nodes=300", "--opponent", "random",
               "--games", "1", "--score", "off", "--store", str(tmp_path / "s.sqlite"), "--quiet")  # fmt: skip
    assert done.code == 0, done.err
    assert "plays elo=1320 as UCI_Elo 1350 (its scale: 1350 to 2850)" in done.err


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
@needs_fairy
def test_fairy_stockfish_plays_antichess_and_grades_it(cli, tmp_path) -> None:
    store = tmp_path / "s.sqlite"
    done = cli("run", "--game", "antichess", "--player", "fairy-stockfish:nodes=300", "--opponent", "random",
               "--games", "1", "--score", "nodes=500", "--store", str(store), "--quiet")  # fmt: skip
    assert done.code == 0, done.err
    sources = {
        r[0] for r in sqlite3.connect(store).execute("SELECT json_extract(grade, '$.source') FROM moves")
    }
    assert "fairy-stockfish 11.1 antichess nodes=500" in sources
    assert cli("run", "--game", "tic_tac_toe", "--player", "stockfish", "--opponent", "random",
               "--store", str(store), "--games", "1").code != 0  # fmt: skip


def test_without_the_engine_chess_plays_unscored_with_one_line(cli, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(engine_mod, "engine_path", lambda name: None)
    monkeypatch.setattr(engine_mod, "_ORACLES", {})
    monkeypatch.setattr(engine_mod, "_WARNED", set())
    store = tmp_path / "s.sqlite"
    done = cli("run", "--game", "chess", "--player", "random", "--opponent", "random", "--games", "1",
               "--store", str(store), "--quiet")  # fmt: skip
    assert done.code == 0
    assert done.err.count("chess is played unscored: stockfish is not installed; apt-get install") == 1
    assert sqlite3.connect(store).execute(
        "SELECT COUNT(*) FROM moves WHERE grade IS NOT NULL"
    ).fetchone() == (0,)
    import plylab.players.engines as players

    monkeypatch.setattr(players, "engine_path", lambda name: None)
    refused = cli("run", "--game", "chess", "--player", "stockfish", "--opponent", "random", "--games", "1",
                  "--store", str(store))  # fmt: skip
    assert refused.code != 0 and "needs the engine: apt-get install stockfish" in refused.err
    assert "Traceback" not in refused.err


@pytest.mark.parametrize("bad", ["stockfish:elo=x", "stockfish:nodes=0", "stockfish:speed=3"])
def test_bad_engine_specs_get_one_line(cli, tmp_path, bad) -> None:
    done = cli("run", "--game", "chess", "--player", bad, "--opponent", "random", "--games", "1",
               "--store", str(tmp_path / "s.sqlite"))  # fmt: skip
    assert done.code != 0 and "Traceback" not in done.err and len(done.err.strip().splitlines()) == 1
