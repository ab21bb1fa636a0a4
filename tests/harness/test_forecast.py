"""A run says what it will do before it starts (issue 22 point 4): games, expected model calls and,
for hosted models, tokens and cost, from the paper's tokens per move for a paper table, else from
the store's earlier moves of that model, else "unknown". `--dry-run` prints that and stops."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run_args
from tests.support.fake_openai_server import FakeOpenAIServer


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FORE_API_KEY", "sk-fore")
    with FakeOpenAIServer(api_key="sk-fore") as srv:
        monkeypatch.setenv("FORE_BASE_URL", srv.url)
        yield srv


def test_dry_run_prints_the_forecast_and_creates_no_store(cli, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    commands = [
        run_args("tic_tac_toe", "llm:model=local,output=enum", "optimal", games=10, store=store),
        ["clue", "study", "--condition", "mixed", "--model", "local", "--games", "3", "--store", str(store)],
        ["learn", "--game", "nim", "--player", "reaper:model=local", "--opponent", "optimal", "--runs", "1"]
        + ["--epochs", "1", "--learn-games", "2", "--eval-games", "3", "--store", str(store)],
        ["paper", "run", "table7", "--references", "--games", "4", "--store", str(store)],
    ]
    expected = [
        "10 games to play; local: ≤ 50 calls (local, no cost)",  # 5 moves at most per seat and game
        "3 games to play; local: ≤ 450 calls",  # 6 model seats, 25 turns each within 150
        # 3 + 2 + 3 games, 8 moves at most; a REAPER move makes 1 to 9 calls (3 rounds, 3 subtasks between)
        "8 games to play; local: ≈ 192 calls (64 to 576)",
        "games to play, no model calls",
    ]
    for args, text in zip(commands, expected, strict=True):
        res = cli(*args, "--dry-run")
        assert res.code == 0, res.err
        assert len(res.out.strip().splitlines()) >= 1 and text in res.out, res.out
        assert "saved" not in res.out  # nothing was played
    assert not store.exists()


@pytest.mark.slow
def test_a_run_states_its_forecast_first_and_learns_from_the_stores_earlier_moves(
    cli, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    store = tmp_path / "s.sqlite"
    player = "llm:model=openai-api/fore/m,output=text"
    unknown = cli(*run_args("nim", player, "random", games=2, store=store), "--dry-run").out
    assert "openai-api/fore/m: ≤ 16 calls, tokens and cost unknown" in unknown
    first = cli(*run_args("nim", player, "random", games=2, store=store))
    assert first.code == 0 and first.err.splitlines()[0] == unknown.strip()  # the run's first line
    again = cli(*run_args("nim", player, "random", games=6, store=store), "--run", "more", "--dry-run").out
    # the fake server reports 7 completion tokens a call; the earlier games' moves per game stand in for the bound
    assert (
        "openai-api/fore/m: ≈" in again
        and "7 per call over" in again
        and "earlier moves in the store" in again
    )


def test_a_paper_table_forecasts_from_the_papers_tokens_per_move(cli, tmp_path: Path, server) -> None:
    store = tmp_path / "s.sqlite"
    res = cli(
        "paper",
        "run",
        "table14",
        "--model",
        "openai-api/fore/gpt-5-nano",
        "--games",
        "2",
        "--store",
        str(store),
        "--dry-run",
    )
    assert res.code == 0, res.err
    # Table 14 prints GPT-5 nano's output tokens per move at low / medium / high effort: 1055.4, 3526.6, 7247.8
    assert "the paper's 3,943 per move" in res.out and "cost unknown" in res.out, res.out
    assert not store.exists()


def test_a_chess_forecast_counts_a_typical_game_not_the_longest(cli, tmp_path: Path) -> None:
    """OpenSpiel's chess allows 17,695 plies: 2 games were forecast as ≤ 17,696 calls (issue 38)."""
    store = tmp_path / "s.sqlite"
    res = cli(*run_args("chess", "llm:model=local", "random", games=2, store=store), "--dry-run")
    assert res.code == 0, res.err
    assert "local: ≈ 80 calls (a typical game: 40 moves a side, at most 8,848)" in res.out, res.out
    assert "17,696" not in res.out
