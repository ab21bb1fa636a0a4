"""A Clue paper table says what its runs changed from the seed's setting (seats, models, turn limit,
games), on the deviations line PlyBench's tables carry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.fake_openai_server import FakeOpenAIServer


@pytest.mark.slow
def test_a_clue_paper_table_names_its_runs_deviations(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It printed no deviations line: three seats of one unknown model, 6 turns and 1 game read as the seed's."""
    store = tmp_path / "clue.sqlite"
    with FakeOpenAIServer(api_key="k") as server:
        monkeypatch.setenv("DEV_API_KEY", "k")
        monkeypatch.setenv("DEV_BASE_URL", server.url)
        args = ["clue", "study", "--condition", "baseline", "--model", "openai-api/dev/m", "--games", "1"]
        assert cli(*args, "--turn-limit", "6", "--store", str(store), "--quiet").code == 0
    out = cli("paper", "report", "clue-accuracy", "--store", str(store), "--format", "markdown").out
    line = next((x for x in out.splitlines() if x.startswith("deviations from the paper's protocol: ")), None)
    assert line is not None, out
    for said in (
        "3 seats in baseline (paper: 6, three per model)",
        "model openai-api/dev/m (paper: GPT-4o-mini and Gemini-2.5-Flash)",
        "turn limit 6 in baseline (the paper states none; plylab's default 150)",
        "1 game in baseline (paper: 6)",
    ):
        assert said in line, line
    data = json.loads(cli("paper", "report", "clue-accuracy", "--store", str(store), "--format", "json").out)
    assert "1 game in baseline (paper: 6)" in data["deviations"]
    alone = cli("paper", "report", "clue-delay", "--store", str(tmp_path / "none.sqlite")).out
    assert "deviations from the paper's protocol: none" in alone  # the seed's numbers alone
