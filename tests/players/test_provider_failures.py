"""A provider's failure is not the model's (issue 19 point 3; seed 003 l.202: F is what PlyBench
could not parse). Through `plylab run` against a real loopback OpenAI server: a failing call is
retried with back-off; one that keeps failing leaves its game unfinished (not saved, not in F),
the run's last line says how many and why, and the same command plays it. The old policy, a
forfeit, stays as `on_provider_failure=forfeit`."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.support import clue as support
from tests.support.cli import run_args
from tests.support.fake_openai_server import Behaviour, FakeOpenAIServer

FAILING = [Behaviour(status=503)] * 5  # the door's first try and its 4 retries


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("INFRA_API_KEY", "sk-infra")
    monkeypatch.setattr("plylab.models.model.DEFAULT_BACKOFF", 0.01)  # retries at once, not after 2 s
    with FakeOpenAIServer(api_key="sk-infra") as srv:
        monkeypatch.setenv("INFRA_BASE_URL", srv.url)  # REAPER's models find the server here
        yield srv


def spec(server: FakeOpenAIServer, name: str, extra: str = "") -> str:
    return f"llm:model=openai-api/infra/{name},base_url={server.url},output=text{extra}"


def games(store: Path) -> list[tuple[int, str, str | None]]:
    with sqlite3.connect(store) as conn:
        return conn.execute("SELECT idx, outcome, failure_kind FROM games ORDER BY idx").fetchall()


def report(cli, store: Path) -> dict:  # noqa: ANN001
    return json.loads(cli("report", "--store", str(store), "--format", "json").out)["matchups"][0]


@pytest.mark.slow
def test_a_failure_that_persists_leaves_the_game_unfinished_and_the_same_command_plays_it(
    cli, tmp_path, server
):
    store = tmp_path / "s.sqlite"
    args = run_args("nim", spec(server, "persist"), "random", games=2, store=store)
    server.queue(*FAILING)  # the first move of game 0
    first = cli(*args)
    assert first.code == 0, first.err
    assert "stopped (1 game unfinished by provider failures (provider_error 1)" in first.out
    assert "1/2 games saved" in first.out and "re-run the same command" in first.out
    assert [idx for idx, _, _ in games(store)] == [1]  # game 0 is not saved: neither a loss nor an F
    row = report(cli, store)
    assert row["games"] == 1 and row["failures"] == 0
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT status FROM runs").fetchone()[0] == "stopped"

    again = cli(*args)
    assert again.code == 0, again.err
    assert "finished" in again.out and "2/2 games saved" in again.out and "1 already there" in again.out
    assert [(idx, kind) for idx, _, kind in games(store)] == [(0, None), (1, None)]
    assert report(cli, store)["failures"] == 0


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_a_failure_is_retried_with_back_off_and_the_game_goes_on(cli, tmp_path, server):
    store = tmp_path / "s.sqlite"
    server.queue(Behaviour(status=503), Behaviour(status=429))  # then good answers
    res = cli(*run_args("nim", spec(server, "retried"), "random", games=1, store=store))
    assert res.code == 0 and "finished" in res.out, res.err
    assert games(store)[0][2] is None and len(server.requests) >= 3  # two failures, then the answer
    assert report(cli, store)["failures"] == 0


@pytest.mark.slow
def test_the_old_policy_forfeits_on_a_provider_failure_as_a_named_key(cli, tmp_path, server):
    store = tmp_path / "s.sqlite"
    server.queue(*FAILING)
    player = spec(server, "forfeit", ",on_provider_failure=forfeit")
    res = cli(*run_args("nim", player, "random", games=1, store=store))
    assert res.code == 0 and "finished" in res.out, res.err
    assert games(store) == [(0, "failure", "provider_error")]
    row = report(cli, store)
    assert row["failures"] == 1 and "on_provider_failure=forfeit" in row["player"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "policy, saved", [("", []), (",on_provider_failure=forfeit", [(0, "failure", "provider_error")])]
)
def test_reaper_leaves_the_game_unfinished_too_unless_told_to_forfeit(cli, tmp_path, server, policy, saved):
    store = tmp_path / "s.sqlite"
    server.queue(*FAILING)
    player = f"reaper:model=openai-api/infra/reaper{len(policy)},answer=legal{policy}"
    res = cli(*run_args("nim", player, "random", games=1, store=store))
    assert res.code == 0, res.err
    assert games(store) == saved
    assert ("1 game unfinished by provider failures" in res.out) == (not policy)


def clue_games(store: Path) -> list[int]:
    return [g["idx"] for g in support.clue_games(store)]


def clue_failures(store: Path) -> list[str]:
    return [t["failure_kind"] for t in support.clue_turns(store) if t["failure_kind"] is not None]


@pytest.mark.slow
def test_a_clue_game_is_left_unfinished_too_and_played_on_re_run(cli, tmp_path, server):
    store = tmp_path / "c.sqlite"
    seats = ["clue-llm:model=openai-api/infra/clue", "clue-random", "clue-random"]
    args = ["clue", "run", *[a for s in seats for a in ("--player", s)], "--games", "1", "--turn-limit", "6"]
    server.queue(*FAILING)  # the model seat's first turn
    first = cli(*args, "--store", str(store))
    assert first.code == 0, first.err
    assert "1 game unfinished by provider failures (provider_error 1)" in first.out, first.out
    assert clue_games(store) == []  # neither a pass nor a game: not saved
    again = cli(*args, "--store", str(store))
    assert again.code == 0 and "finished" in again.out, again.err
    assert clue_games(store) == [0] and "provider_error" not in clue_failures(store)


@pytest.mark.slow
def test_clue_keeps_the_old_pass_as_a_named_key(cli, tmp_path, server):
    store = tmp_path / "c.sqlite"
    seats = [
        "clue-llm:model=openai-api/infra/cluepass,on_provider_failure=pass",
        "clue-random",
        "clue-random",
    ]
    server.queue(*FAILING)
    res = cli(
        "clue", "run", *[a for s in seats for a in ("--player", s)], "--games", "1", "--turn-limit", "6",
        "--store", str(store),
    )  # fmt: skip
    assert res.code == 0 and "finished" in res.out, res.err
    assert clue_games(store) == [0] and clue_failures(store)[0] == "provider_error"
