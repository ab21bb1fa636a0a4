"""A matchup whose games were forfeited (F) shows its optimality as the paper's Table 2 does (003 l.74):
over the moves the player made, marked †, the failures counted apart and said under the table; and
what n counts where no interval is printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run_args
from tests.support.fake_openai_server import Behaviour, FakeOpenAIServer


def test_an_optimality_beside_forfeits_says_what_it_rests_on(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It printed "1.00 (n=1)" beside F = 2 of 2 with nothing more."""
    store = tmp_path / "s.sqlite"
    with FakeOpenAIServer(api_key="k") as srv:
        monkeypatch.setenv("FORE_API_KEY", "k")
        monkeypatch.setenv("FORE_BASE_URL", srv.url)
        # each game: one legal move (scripted: the first listed), then an answer that is no move
        srv.queue(Behaviour(), Behaviour(text="zzz"), Behaviour(), Behaviour(text="zzz"))
        played = cli(*run_args("tic_tac_toe", "llm:model=openai-api/fore/m", "optimal", games=2, store=store))
        assert played.code == 0, played.err
    out = cli("report", "--store", str(store)).out
    row = next(line for line in out.splitlines() if "tic_tac_toe" in line)
    assert "│ 2 │ 1.00 (n=1)† " in row, out  # F = 2, the rate over one decision, marked
    flat = " ".join(out.split())
    assert "failed to return a legal action in 2 of 2 games (F), each forfeited" in flat, out
    assert "its optimality is over the 1 decision it did make" in flat, out
    assert "optimality (n=k): a rate over k graded decisions" in flat, out
