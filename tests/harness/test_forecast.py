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


def test_the_forecast_bounds_the_calls_each_way_of_asking_makes(cli, tmp_path: Path) -> None:
    """`sample=majority:3` was forecast at one call a move ("≤ 10 calls" where the run made 24)."""
    store = tmp_path / "s.sqlite"
    # tic-tac-toe: 5 moves at most per seat, 2 games: 10 moves
    for player, calls in (
        ("llm:model=local", 10),
        ("llm:model=local,sample=majority:3", 30),  # three answers a move
        ("llm:model=local,sample=rethink:2", 30),  # one answer and up to two rethinks
        ("llm:model=local,sample=majority:3,on_failure=retry:1", 60),  # each answer re-asked once
    ):
        res = cli(*run_args("tic_tac_toe", player, "optimal", games=2, store=store), "--dry-run")
        assert res.code == 0, res.err
        assert f"local: ≤ {calls} calls (local, no cost)" in res.out, (player, res.out)


@pytest.mark.slow
def test_a_majority_run_makes_the_calls_its_forecast_said(
    cli, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    """Checked against a real run (scripted replies): every call is within the bound, and the store's
    earlier moves then forecast the same run's calls exactly."""
    import sqlite3

    store = tmp_path / "s.sqlite"
    player = "llm:model=openai-api/fore/m,sample=majority:3"
    before = cli(*run_args("nim", player, "random", games=2, store=store), "--dry-run").out
    assert "openai-api/fore/m: ≤ 48 calls" in before, before  # 8 moves at most a game, 3 answers each
    assert cli(*run_args("nim", player, "random", games=2, store=store)).code == 0
    made = len(server.requests)
    moves = sqlite3.connect(store).execute("SELECT COUNT(*) FROM moves WHERE calls > 0").fetchone()[0]
    assert made == 3 * moves and made <= 48
    again = cli(*run_args("nim", player, "random", games=2, store=store), "--run", "again", "--dry-run").out
    assert f"openai-api/fore/m: ≈ {made} calls" in again, again


class Listener:
    """A loopback port that records every connection made to it (and answers none)."""

    def __init__(self) -> None:
        import socket
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.contacts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.contacts += 1
            conn.close()


def test_a_dry_run_of_a_hosted_model_needs_no_key_and_contacts_no_server(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was "no API key: set FORE_API_KEY", and with a key a probe of the server."""
    listener = Listener()
    for var in ("FORE_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("FORE_BASE_URL", listener.url)
    monkeypatch.setenv("OPENAI_BASE_URL", listener.url)
    store = tmp_path / "s.sqlite"
    for args in (
        run_args("nim", "llm:model=openai-api/fore/m", "random", games=2, store=store),
        run_args("nim", "llm:model=openai/gpt-5-mini", "llm:model=openai-api/fore/m", games=2, store=store),
        ["learn", "--game", "nim", "--player", "reaper:model=openai-api/fore/m", "--opponent", "optimal"]
        + ["--runs", "1", "--epochs", "1", "--learn-games", "1", "--eval-games", "1", "--store", str(store)],
        [
            "clue",
            "study",
            "--condition",
            "mixed",
            "--model",
            "openai-api/fore/m",
            "--games",
            "1",
            "--store",
            str(store),
        ],
        ["paper", "run", "table2", "--model", "openai-api/fore/m", "--games", "2", "--store", str(store)],
    ):
        res = cli(*args, "--dry-run")
        assert res.code == 0, res.err
        assert "openai-api/fore/m: " in res.out and " to play" in res.out, res.out
    assert listener.contacts == 0 and not store.exists()
    res = cli(*run_args("nim", "llm:model=nosuch/m", "random", games=2, store=store), "--dry-run")
    assert res.code == 2 and "unknown provider 'nosuch'" in res.err, res.err  # the name is still checked
    listener.sock.close()
