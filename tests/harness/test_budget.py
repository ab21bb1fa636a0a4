"""Budgets: --max-calls/--max-tokens/--max-cost stop new games, let games in flight finish, mark the
run stopped, and a larger budget resumes it; replies from the response cache are free."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from plylab.errors import UserError
from plylab.harness.budget import Budget, game_usage, move_usage
from plylab.harness.records import GameRecord
from tests.support import records
from tests.support.cli import run_args
from tests.support.fake_openai_server import FakeOpenAIServer


def game(*moves: tuple[int, list[dict]]) -> GameRecord:
    """A record whose moves made (calls, attempts)."""
    return records.game(
        [records.move(i, calls=c, attempts=a) for i, (c, a) in enumerate(moves)],
        player="p",
        opponent="o",
        player_seat=0,
        seed=1,
        returns=[1.0, -1.0],
        outcome="win",
    )


NEW = {"prompt": "p", "input_tokens": 100, "output_tokens": 20, "cost": 0.01}
CACHED = {**NEW, "cached": True}


def test_cache_hits_are_free() -> None:
    assert move_usage(1, json.dumps([NEW, CACHED])).tokens == 120
    assert move_usage(0, json.dumps([CACHED])) == move_usage(0, "[]")
    u = game_usage(game((2, [NEW, NEW]), (0, [CACHED]), (1, [CACHED, NEW])))
    assert (u.calls, u.tokens, round(u.cost, 6)) == (3, 360, 0.03)


def test_no_game_starts_that_would_pass_a_limit() -> None:
    b = Budget(max_calls=10)
    assert b.allows_new_game() and b.allows_new_game()  # nothing known yet: games may start
    b.charge(game((3, [NEW] * 3)))  # one game saved: 3 calls; one still in flight
    assert b.allows_new_game()  # 3 used + 3 in flight + 3 for this one = 9
    assert not b.allows_new_game()  # ... + 3 more = 12 > 10
    assert b.reason == "budget --max-calls 10: 3 calls used"
    b.charge(game())  # a cheap game ends: once stopped, a run stays stopped until re-run
    assert not b.allows_new_game()


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"max_tokens": 200}, "budget --max-tokens 200: 120 tokens used"),
        ({"max_cost": 0.015}, "budget --max-cost $0.015: $0.0100 used"),
    ],
)
def test_tokens_and_dollars(kwargs: dict, reason: str) -> None:
    b = Budget(**kwargs)
    assert b.allows_new_game()
    b.charge(game((1, [NEW])))
    assert not b.allows_new_game() and b.reason == reason


def test_zero_means_no_calls_and_negative_is_refused() -> None:
    assert not Budget(max_calls=0).allows_new_game()
    with pytest.raises(UserError, match="--max-cost must be zero or more"):
        Budget(max_cost=-1)
    assert Budget().allows_new_game() and Budget().reason is None


# -- end to end, with a loopback OpenAI-compatible server -----------------------------------------


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("FAKE_API_KEY", "sk-fake")
    with FakeOpenAIServer(delay=0.01) as server:
        yield f"llm:model=openai-api/fake/fake,base_url={server.url}"


def run(cli, store: Path, model: str, *extra: str, name: str | None = None):  # noqa: ANN001, ANN201
    args = [
        *run_args("tic_tac_toe", model, "random", games=8, store=store, quiet=False),
        "--concurrency",
        "2",
        "--quiet",
        *extra,
    ]
    return cli(*args, *(["--run", name] if name else []))


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_budget_stops_then_a_larger_one_resumes(cli, tmp_path: Path, model: str) -> None:
    store = tmp_path / "s.sqlite"
    first = run(cli, store, model, "--max-calls", "6")
    assert first.code == 0, first.err
    assert (
        " stopped (budget --max-calls 6: " in first.out and "re-run the same command to resume" in first.out
    )
    with sqlite3.connect(store) as conn:
        status, reason = conn.execute("SELECT status, stop_reason FROM runs").fetchone()
        saved, calls = conn.execute(
            "SELECT COUNT(DISTINCT g.id), SUM(m.calls) FROM games g JOIN moves m ON m.game_id = g.id"
        ).fetchone()
    assert status == "stopped" and reason.startswith("budget --max-calls 6")
    assert 0 < saved < 8
    assert calls <= 6 + 2 * 5  # at most the games in flight (--concurrency 2) ran past the limit

    again = run(cli, store, model, "--max-calls", "6")  # the same budget: prior usage counts
    assert " stopped (budget --max-calls 6: " in again.out, again.out

    more = run(cli, store, model, "--max-calls", "200")
    assert f"finished: 8/8 games saved in {store} ({8 - saved} played now, {saved} already there)" in more.out


@pytest.mark.slow
def test_replies_from_the_cache_do_not_count(cli, tmp_path: Path, model: str) -> None:
    store = tmp_path / "s.sqlite"
    assert run(cli, store, model).code == 0
    # The same games under another run name: every reply is already in the store's cache.
    replay = run(cli, store, model, "--max-calls", "1", name="replay")
    assert "finished: 8/8" in replay.out, replay.out
    with sqlite3.connect(store) as conn:
        calls, hits = conn.execute(
            "SELECT SUM(m.calls), SUM(m.cache_hits) FROM moves m JOIN games g ON g.id = m.game_id "
            "JOIN runs r ON r.id = g.run_id WHERE r.name = 'replay'"
        ).fetchone()
    assert calls == 0 and hits > 0
