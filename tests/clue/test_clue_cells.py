"""Clue's matrix cells read YES / NO / MAYBE as the seed names them (000 l.90), and a run stored
while they read Y / - / ? resumes with those (its prompts are its cache keys)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.support.fake_openai_server import FakeOpenAIServer

# Written by plylab at 5b9a60f (cells Y / - / ?), with tests/support's fake server:
#   FAKE_BASE_URL=<server> FAKE_API_KEY=sk-fake plylab clue run -p clue-llm:model=openai-api/fake/m,matrix=on
#     -p clue-random -p clue-random --games 1 --seed 5 --turn-limit 6 --store S
STORED = Path(__file__).parents[1] / "data" / "stores" / "clue_cells_symbols.sqlite"
SEATS = ["-p", "clue-llm:model=openai-api/fake/m,matrix=on", "-p", "clue-random", "-p", "clue-random"]
RUN = ["clue", "run", *SEATS, "--games", "1", "--seed", "5", "--turn-limit", "6", "-q"]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with FakeOpenAIServer() as srv:
        monkeypatch.setenv("FAKE_BASE_URL", srv.url)
        monkeypatch.setenv("FAKE_API_KEY", "sk-fake")
        yield srv


def matrix_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if " | " in line][1:]


def test_a_new_run_writes_the_seeds_cells_and_records_the_rule(cli, server, tmp_path) -> None:
    store = tmp_path / "new.sqlite"
    assert cli(*RUN, "--store", str(store)).code == 0
    content = server.requests[0]["messages"][1]["content"]
    assert "YES = holds it, NO = does not, MAYBE = unknown" in content
    cells = {c for line in matrix_lines(content) for c in line.split(" | ")[1].split()}
    assert cells <= {"YES", "NO", "MAYBE"} and {"YES", "NO", "MAYBE"} <= cells
    plan = json.loads(sqlite3.connect(store).execute("SELECT plan FROM runs").fetchone()[0])
    assert plan["clue_cells"] == "words"


@pytest.mark.slow
def test_a_run_stored_with_symbol_cells_resumes_with_them(cli, server, tmp_path) -> None:
    store = tmp_path / "stored.sqlite"
    shutil.copy(STORED, store)
    with sqlite3.connect(store) as conn:  # the games go, the replies stay: a resume must replay them
        conn.execute("PRAGMA foreign_keys=ON")
        for table in ("moves", "games"):
            conn.execute(f"DELETE FROM {table}")
        replies = conn.execute("SELECT count(*) FROM responses").fetchone()[0]
    res = cli(*RUN, "--store", str(store))
    assert res.code == 0, res.err
    assert server.requests == []  # every reply from the cache: the Y / - / ? prompt was asked again
    conn = sqlite3.connect(store)
    assert conn.execute("SELECT count(*) FROM responses").fetchone()[0] == replies
    assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 1
