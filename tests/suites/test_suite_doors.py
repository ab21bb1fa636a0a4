"""Every suite door refuses what it cannot use in one line and exit 2, through the real `plylab`
process: hand-edited numbers JSON lacks, forged files with correct hashes (empty moves, a position
twice, a mover who is not to move), a suite name a line separator would split, a FIFO or a directory
given as a file, a margin that selects nothing sensible; and a store file `run` accepts, `suite run`
accepts too."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from plylab.suites.build import build_suite
from plylab.suites.file import canonical_json, digest
from tests.support.cli import plylab_subprocess


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("suite") / "t.jsonl"
    build_suite("t", "tic_tac_toe", 5, seed=1).write(path)
    return path


def _one_line_refusal(done: Any, says: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert says in done.stderr, done.stderr


def forge(built: Path, out: Path, edit: Callable[[list[dict[str, Any]]], None]) -> Path:
    """The suite with its positions edited and every hash made right again, as a forger would."""
    lines = built.read_text().splitlines()
    head = json.loads(lines[0])
    positions = [json.loads(line) for line in lines[1:]]
    edit(positions)
    for p in positions:
        p.pop("id")
        p["id"] = digest(canonical_json(p))[:16]
    head.pop("hash")
    head["positions"] = len(positions)
    body = [canonical_json({k: v for k, v in p.items() if k != "id"} | {"id": p["id"]}) for p in positions]
    head["hash"] = "sha256:" + digest("\n".join([canonical_json(head), *body]))
    out.write_text("\n".join([canonical_json(head), *body]) + "\n")
    return out


def _raw(built: Path, out: Path, line: int, old: str, new: str) -> Path:
    lines = built.read_text().splitlines()
    assert old in lines[line]
    lines[line] = lines[line].replace(old, new, 1)
    out.write_text("\n".join(lines) + "\n")
    return out


@pytest.mark.parametrize(
    ("line", "old", "new", "says"),
    [
        (1, '"value":', '"value":NaN,"was":', "holds NaN, which is not a finite JSON number"),
        (0, '"seed":1', '"seed":1e999', "holds 1e999, which is not a finite JSON number"),
        (1, '"index":0', '"index":1e999', "holds 1e999, which is not a finite JSON number"),
        (1, '"index":0', '"index":0.5', "'index' must be a whole number"),
        (0, '"seed":1', '"seed":-1', "'seed' must be a whole number"),
    ],
)
def test_hand_edited_numbers_json_cannot_carry_are_one_line(
    built: Path, tmp_path: Path, line: int, old: str, new: str, says: str
) -> None:
    edited = _raw(built, tmp_path / "e.jsonl", line, old, new)
    for command in (["suite", "show", str(edited)], ["suite", "run", str(edited), "--player", "random"]):
        _one_line_refusal(plylab_subprocess(*command, "--store", str(tmp_path / "s.sqlite"))
                          if command[1] == "run" else plylab_subprocess(*command), says)  # fmt: skip
    assert not (tmp_path / "s.sqlite").exists()


def _empty_moves(ps: list[dict[str, Any]]) -> None:
    ps[2]["moves"] = []


def _twice(ps: list[dict[str, Any]]) -> None:
    ps[3] = {**ps[1], "index": 3}


def _mover_five(ps: list[dict[str, Any]]) -> None:
    ps[1]["mover"] = 5


def _a_move_dropped(ps: list[dict[str, Any]]) -> None:
    ps[0]["moves"] = ps[0]["moves"][1:]


def _renumbered(ps: list[dict[str, Any]]) -> None:
    ps[4]["index"] = 40


def _chance_above_one(ps: list[dict[str, Any]]) -> None:
    ps[0]["features"]["chance"] = 7


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (_empty_moves, "position 2 (line 4): 'moves' is empty"),
        (_twice, "position 3 (line 5) is position 1 again"),
        (_mover_five, "its mover is player 5, but player"),
        (_a_move_dropped, "the legal moves are"),
        (_renumbered, "is numbered 40; positions are numbered 0, 1, 2... in order"),
        (_chance_above_one, "'features.chance' must be a share between 0 and 1"),
    ],
)
def test_a_forged_suite_with_correct_hashes_is_refused_whole_on_load(
    built: Path, tmp_path: Path, edit: Callable[[list[dict[str, Any]]], None], says: str
) -> None:
    forged = forge(built, tmp_path / "f.jsonl", edit)
    _one_line_refusal(plylab_subprocess("suite", "show", str(forged)), says)
    store = tmp_path / "s.sqlite"
    _one_line_refusal(plylab_subprocess("suite", "run", str(forged), "--player", "random", "--store", str(store)), says)  # fmt: skip
    assert not store.exists()


def test_a_suite_forged_unchanged_is_read(built: Path, tmp_path: Path) -> None:
    """The forger's helper alone changes nothing: the refusals above are the edits'."""
    same = forge(built, tmp_path / "same.jsonl", lambda ps: None)
    assert same.read_text() == built.read_text()
    done = plylab_subprocess("suite", "show", str(same))
    assert done.returncode == 0 and "5 positions of tic_tac_toe" in done.stdout


@pytest.mark.parametrize("name", ["a\u2028b", "a\u0085b", "tab\there", " padded", "x" * 101, "a/b"])
def test_a_suite_name_that_would_not_read_back_is_refused_in_one_line(tmp_path: Path, name: str) -> None:
    done = plylab_subprocess(
        "suite", "build", name, "--game", "tic_tac_toe", "--positions", "2", cwd=tmp_path
    )
    _one_line_refusal(done, "a suite name is one printable word")
    assert not (tmp_path / "suites").exists()


def test_a_suite_file_reads_back_whatever_its_name_holds(tmp_path: Path) -> None:
    """Reading splits lines on newlines only: a header whose name holds U+2028 (from an older build,
    or written by hand) is refused for its name, never read as two broken lines."""
    suite = build_suite("t", "tic_tac_toe", 2, seed=1)
    path = tmp_path / "odd.jsonl"
    text = suite.text().replace('"name":"t"', '"name":"t\u2028u"', 1)
    path.write_text(text, encoding="utf-8")
    _one_line_refusal(plylab_subprocess("suite", "show", str(path)), "a suite name is one printable word")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_or_a_directory_given_as_a_file_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "puzzles.csv"
    os.mkfifo(fifo)  # nobody writes it: opening it for reading would wait for ever
    done = plylab_subprocess("suite", "build", "p", "--game", "chess", "--from-puzzles", str(fifo),
                             cwd=tmp_path, timeout=60)  # fmt: skip
    _one_line_refusal(done, "is a FIFO, not a regular file")
    done = plylab_subprocess("suite", "build", "p", "--game", "chess", "--from-puzzles", str(tmp_path),
                             cwd=tmp_path, timeout=60)  # fmt: skip
    _one_line_refusal(done, "is a directory, not a regular file")
    suite_fifo = tmp_path / "s.jsonl"
    os.mkfifo(suite_fifo)
    _one_line_refusal(plylab_subprocess("suite", "show", str(suite_fifo), timeout=60), "no suite file")
    done = plylab_subprocess("suite", "build", "t", "--game", "tic_tac_toe", "--positions", "2",
                             "--out", str(tmp_path), cwd=tmp_path)  # fmt: skip
    _one_line_refusal(done, "a directory is in its place")


@pytest.mark.parametrize("margin", ["-1", "nan", "inf", "-0.5"])
def test_a_margin_that_selects_nothing_sensible_is_refused_saying_what_is_accepted(
    tmp_path: Path, margin: str
) -> None:
    done = plylab_subprocess("suite", "build", "m", "--game", "tic_tac_toe", "--positions", "3",
                             "--margin", margin, cwd=tmp_path)  # fmt: skip
    _one_line_refusal(done, "--margin must be a finite number, 0 or more")


def test_suite_run_accepts_the_empty_store_file_that_run_accepts(built: Path, tmp_path: Path) -> None:
    """An empty file at the store's path (a creation cut short) is a new store for both commands."""
    games, answers = tmp_path / "games.sqlite", tmp_path / "answers.sqlite"
    games.touch()
    answers.touch()
    done = plylab_subprocess("run", "--game", "tic_tac_toe", "--player", "random", "--opponent", "random",
                             "--games", "1", "--store", str(games), "-q")  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = plylab_subprocess("suite", "run", str(built), "--player", "random", "--store", str(answers), "-q")
    assert done.returncode == 0, done.stderr
    assert "5/5 answers saved" in done.stdout
    done = plylab_subprocess("suite", "report", "--store", str(answers), "--format", "json")
    assert done.returncode == 0 and json.loads(done.stdout)["players"]["players"][0]["n"] == 5


def test_a_suite_line_respelled_with_the_same_values_is_still_read(built: Path, tmp_path: Path) -> None:
    """A line no longer canonical (spaces, a number spelled 0.50) but holding the same values is the
    same suite: read by re-serialising its values, as a tool that reformats JSON would leave it."""
    lines = built.read_text().splitlines()
    lines[1] = json.dumps(json.loads(lines[1]), indent=None)  # spaces after ':' and ','
    respelled = tmp_path / "r.jsonl"
    respelled.write_text("\n".join(lines) + "\n")
    assert respelled.read_text() != built.read_text()
    done = plylab_subprocess("suite", "show", str(respelled))
    assert done.returncode == 0 and "5 positions of tic_tac_toe" in done.stdout, done.stderr
