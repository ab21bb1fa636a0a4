"""REAPER answers a suite with its experience memory frozen and named: the memory is read, never
written, each answer is independent of the order positions are asked in, and the memory's content
hash is saved with every answer and printed in the report's player name. The local model (Gemma 3
270M) and the real sentence encoder play; no scripted replies."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from plylab.cli import main
from plylab.games import get_game
from plylab.players import RunContext
from plylab.players.reaper import Case, CaseMemory
from plylab.players.reaper.encoder import get_encoder
from plylab.suites.build import build_suite
from plylab.suites.file import read_suite
from plylab.suites.study import SuiteStudy

pytestmark = pytest.mark.model  # REAPER on the local model, retrieval with the real encoder

# The 270M base model needs its one round forced to a legal answer (as tests/learning's TINY).
TINY = "model=local,max_tokens=48,iterations=1,k=4,answer=legal,force_final=on"
INTENT = "remembered: take the centre"


def encode(texts: list[str]) -> np.ndarray:
    return get_encoder().encode(texts)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_memory(path: Path, suite_path: Path, *, games: int = 1) -> str:
    """A tic-tac-toe memory holding a case at each of the suite's positions (the observation REAPER
    keys retrieval by), written as a learning game writes it; returns its `sha256:` content hash."""
    game = get_game("tic_tac_toe")
    f = game.formulation("standard")
    suite, _ = read_suite(str(suite_path))
    memory = CaseMemory.open(path, frozen=False, game=game.name, formulation=f.name)
    for g in range(games):
        cases = []
        for pos in suite.positions:
            state = pos.state(game)
            legal = list(f.legal_labels(state))
            cases.append(
                Case(game.name, f.name, f.render_state(state), f.render_state(state), legal, legal[g % len(legal)],
                     INTENT, 1.0, "positive", ply=pos.ply)
            )  # fmt: skip
        memory.add_game(cases, dedup=True, encode=encode)
    digest = memory.digest()
    memory.close()
    return f"sha256:{digest}"


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def setup(tmp_path: Path) -> tuple[Path, Path, str]:
    suite = tmp_path / "ttt.jsonl"
    build_suite("ttt", "tic_tac_toe", 3, seed=1).write(suite)
    memory = tmp_path / "memory.sqlite"
    return suite, memory, write_memory(memory, suite)


def test_reaper_answers_a_suite_with_its_memory_frozen_and_named(
    setup: tuple[Path, Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite, memory, digest = setup
    before = sha(memory)
    spec = f"reaper:{TINY},memory={memory}"
    store = tmp_path / "s.sqlite"
    code, out, err = cli(capsys, "suite", "run", str(suite), "--player", spec, "--store", str(store), "-q")
    assert code == 0, err
    assert sha(memory) == before  # read, never written: the file is byte for byte the same

    with sqlite3.connect(store) as conn:
        rows = conn.execute("SELECT position, player, memory, prompt FROM suite_answers ORDER BY position")
        saved = rows.fetchall()
    assert [r[0] for r in saved] == [0, 1, 2]
    assert {r[2] for r in saved} == {digest}  # the memory's content hash, with every answer
    assert all(INTENT in r[3] for r in saved)  # and the memory was read: its cases are in each prompt

    # Frozen: the positions asked in the other order, in one process, with no cache, give each
    # position the same prompt (the same retrieved cases) as the run did.
    study = SuiteStudy(read_suite(str(suite))[0], [spec])
    jobs = list(study.jobs())
    assert {j.memory for j in jobs} == {digest}
    reverse = {}
    for job in reversed(jobs):
        answer = asyncio.run(job.play(RunContext()))
        reverse[answer.position] = answer
    assert {i: reverse[i].prompt for i in reverse} == {r[0]: r[3] for r in saved}
    assert {a.memory for a in reverse.values()} == {digest}
    assert sha(memory) == before

    code, out, _ = cli(capsys, "suite", "report", "--store", str(store), "--format", "json")
    (row,) = json.loads(out)["players"]["players"]
    assert (row["player"], row["memory"], row["n"]) == (study.players[0], digest, 3)
    code, out, _ = cli(capsys, "suite", "report", "--store", str(store), "--format", "markdown")
    assert code == 0 and f"[memory {digest[:19]}]" in out


def test_a_memory_changed_since_the_stored_answers_is_refused_in_one_line(
    setup: tuple[Path, Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite, memory, digest = setup
    spec = f"reaper:{TINY},memory={memory}"
    store = tmp_path / "s.sqlite"
    assert cli(capsys, "suite", "run", str(suite), "--player", spec, "--store", str(store), "-q")[0] == 0
    memory.unlink()
    changed = write_memory(memory, suite, games=2)  # retrained at the same path
    assert changed != digest
    code, _, err = cli(capsys, "suite", "run", str(suite), "--player", spec, "--store", str(store), "-q")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "a changed memory is another player" in err and digest in err and changed in err
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT DISTINCT memory FROM suite_answers").fetchall() == [(digest,)]


def test_a_memory_of_another_game_is_refused_in_one_line(
    setup: tuple[Path, Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, memory, _ = setup
    c4 = tmp_path / "c4.jsonl"
    build_suite("c4", "connect_four", 2, seed=1).write(c4)
    argv = [
        "suite",
        "run",
        str(c4),
        "--player",
        f"reaper:{TINY},memory={memory}",
        "--store",
        str(tmp_path / "s"),
    ]
    code, _, err = cli(capsys, *argv)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "holds experience of 'tic_tac_toe', not 'connect_four'" in err
