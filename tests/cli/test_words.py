"""What `plylab --help` and friends say (issue 30 point 7): whole sentences, named arguments, and
help on every option."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from plylab.cli import app


def commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for name, cmd in group.commands.items():
        yield (*path, name), cmd
        if hasattr(cmd, "commands"):
            yield from commands(cmd, (*path, name))


ROOT: Any = typer.main.get_command(app)
ALL = list(commands(ROOT))


@pytest.mark.parametrize(("path", "cmd"), ALL, ids=[" ".join(p) for p, _ in ALL])
def test_each_listed_description_is_a_whole_sentence(path: tuple[str, ...], cmd: Any) -> None:
    listed = cmd.get_short_help_str(limit=45)  # what the parent's --help shows beside the name
    assert not listed.endswith("..."), (path, listed)
    assert listed.endswith("."), (path, listed)


def test_export_usage_names_its_argument() -> None:
    usage = CliRunner().invoke(app, ["export", "--help"]).output.splitlines()[0]
    assert "{OUT}" in usage, usage  # typer writes a required argument in braces


def test_every_clue_study_option_has_help() -> None:
    study = ROOT.commands["clue"].commands["study"]
    options = [p for p in study.params if p.param_type_name == "option" and not p.hidden]
    missing = [p.name for p in options if not p.help]
    assert missing == []


@pytest.mark.slow
def test_one_game_is_one_game_not_one_games(cli, tmp_path) -> None:  # noqa: ANN001
    store = str(tmp_path / "s.sqlite")
    args = ["run", "--game", "tic_tac_toe", "--player", "random", "--opponent", "random", "--games", "1"]
    res = cli(*args, "--store", store, "--quiet", "--run", "one")
    assert res.code == 0, res.err
    said = res.out + res.err
    assert "1/1 game saved" in said and "1 games" not in said, said
    out = tmp_path / "g.csv"
    res = cli("export", str(out), "--store", store, "--table", "runs")
    assert res.code == 0 and "wrote 1 run to" in res.out, res
    site = tmp_path / "site"
    assert cli("report", "--store", store, "--html", str(site)).code == 0
    pages = [site / "index.html", *site.glob("runs/run-*.html"), *site.glob("matchups/*.html")]
    text = " ".join(p.read_text() for p in pages)
    assert "1 game, from the player" in text and "1 game in 1 run" in text, (
        "the site counts as the terminal does"
    )
    assert not re.search(r"\b1 games\b|\b1 runs\b", text)


def test_a_count_is_singular_only_for_one() -> None:
    from plylab.words import count

    assert [count(n, "game") for n in (0, 1, 2, 1500)] == ["0 games", "1 game", "2 games", "1,500 games"]
    assert count(1, "ply") == "1 ply" and count(3, "ply") == "3 plies"


def test_seed_line_references_are_explained_where_they_appear(cli, tmp_path) -> None:  # noqa: ANN001
    listed = cli("paper", "list")
    assert "003 l.66" in listed.out
    assert listed.err.count("'003 l.66-74' is lines 66-74 of the text of seed paper 003") == 1, listed.err
    reported = cli("paper", "report", "table2", "--store", str(tmp_path / "none.sqlite"))
    assert "(003 l.74)" in reported.out and reported.err.count("seed paper 003") == 1, reported


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (["solve", "--game", "tictactoe"], "tic_tac_toe"),
        (["solve", "--game", "Connect-Four"], "connect_four"),
        (["run", "--game", "nim", "--player", "rando", "--opponent", "random"], "random"),
        (
            [
                "run",
                "--game",
                "tic_tac_toe",
                "--formulation",
                "standrd",
                "--player",
                "random",
                "--opponent",
                "random",
            ],
            "standard",
        ),
    ],
)
def test_a_near_miss_name_gets_did_you_mean(cli, args: list[str], meant: str, tmp_path) -> None:  # noqa: ANN001
    res = cli(*args, "--store", str(tmp_path / "s.sqlite")) if args[0] == "run" else cli(*args)
    assert res.code == 2
    assert f"(did you mean '{meant}'?)" in res.err and res.err.count("\n") == 1, res.err


def test_a_far_name_gets_no_guess(cli) -> None:  # noqa: ANN001
    res = cli("solve", "--game", "zzz")
    assert res.code == 2 and "did you mean" not in res.err and "accepted: " in res.err


LEARN = ["learn", "--game", "tic_tac_toe", "--player", "reaper:model=local", "--opponent", "optimal"]
LEARN += ["--runs", "1", "--epochs", "1", "--learn-games", "2", "--eval-games", "2"]


def forecast_calls(text: str) -> int:
    import re

    found = re.search(r"local: ≈ ([\d,]+) calls", text)
    assert found is not None, text
    return int(found.group(1).replace(",", ""))


def test_the_learn_forecast_is_within_a_factor_of_two_of_the_calls_made(cli, tmp_path) -> None:  # noqa: ANN001
    # the run: this forecast said "≥ 30" and the run made 151 calls (6 games of tic-tac-toe)
    res = cli(*LEARN, "--store", str(tmp_path / "s.sqlite"), "--dry-run")
    assert res.code == 0, res.err
    assert 151 / 2 <= forecast_calls(res.out) <= 151 * 2, res.out


def test_the_learn_forecast_takes_calls_per_move_from_the_stores_earlier_moves(cli, tmp_path) -> None:  # noqa: ANN001
    import sqlite3

    store = tmp_path / "s.sqlite"
    played = cli(
        *["run", "--game", "tic_tac_toe", "--player", "random", "--opponent", "optimal", "--games", "2"],
        *["--store", str(store), "--quiet", "--run", "earlier"],
    )
    assert played.code == 0, played.err
    with sqlite3.connect(store) as conn:  # as if a REAPER player had made these moves, 7 calls each
        conn.execute("UPDATE moves SET player = 'reaper:model=local', calls = 7 WHERE player = 'random'")
        per_game = conn.execute(
            "SELECT AVG(n) FROM (SELECT COUNT(*) AS n FROM moves WHERE player = 'reaper:model=local' "
            "GROUP BY game_id)"
        ).fetchone()[0]
    res = cli(*LEARN, "--store", str(store), "--dry-run")
    assert res.code == 0, res.err
    assert forecast_calls(res.out) == round(6 * per_game * 7), res.out


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_solve_json_numbers_seats_as_the_store_does(cli, tmp_path) -> None:  # noqa: ANN001
    import json
    import sqlite3

    store = tmp_path / "s.sqlite"
    args = ["run", "--game", "tic_tac_toe", "--player", "random", "--opponent", "random", "--games", "1"]
    assert cli(*args, "--store", str(store), "--quiet", "--run", "seats").code == 0
    with sqlite3.connect(store) as conn:
        plies = conn.execute("SELECT ply, seat, action_label FROM moves ORDER BY ply LIMIT 3").fetchall()
    for ply, seat, _ in plies:
        moves = " ".join(label for _, _, label in plies[:ply])
        out = json.loads(cli("solve", "--game", "tic_tac_toe", "--moves", moves, "--format", "json").out)
        assert out["to_move"] == seat and out["to_move_name"] == "XO"[seat], (ply, out)
    poker = json.loads(
        cli("solve", "--game", "kuhn_poker", "--moves", "Deal:0 Deal:2 Bet", "--format", "json").out
    )
    assert poker["to_move"] == 1 and poker["seats"] == ["Player 1", "Player 2"] and len(poker["value"]) == 2


def test_clue_and_paper_reports_print_the_terminal_table_report_prints(cli, tmp_path) -> None:  # noqa: ANN001
    store = tmp_path / "c.sqlite"
    seats = ["-p", "clue-oracle", "-p", "clue-random", "-p", "clue-random"]
    assert cli("clue", "run", *seats, "--games", "1", "--store", str(store), "-q").code == 0
    clue = cli("clue", "report", "--store", str(store), "--format", "table")
    assert clue.code == 0, clue.err
    assert "┏" in clue.out and "┃ condition" in clue.out and "|---|" not in clue.out, clue.out
    assert "clue-oracle" in clue.out and "`" not in clue.out
    paper = cli("paper", "report", "table2", "--store", str(tmp_path / "none.sqlite"), "--format", "table")
    assert "┏" in paper.out and "|---|" not in paper.out


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_reports_default_to_the_terminal_table_only_at_a_terminal(tmp_path) -> None:
    import os
    import sys

    import pexpect

    args = ["-m", "plylab", "paper", "report", "table2", "--store", str(tmp_path / "none.sqlite")]
    child = pexpect.spawn(
        sys.executable, args, env={**os.environ, "COLUMNS": "200"}, encoding="utf-8", timeout=60
    )
    child.expect(pexpect.EOF)
    assert "┏" in child.before and "|---|" not in child.before, child.before
    from tests.support.cli import plylab_subprocess

    piped = plylab_subprocess(*args[2:])
    assert "|---|" in piped.stdout and "┏" not in piped.stdout  # piped: markdown, as before
