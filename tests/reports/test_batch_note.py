"""A run whose `llm` player asked in a batch (`batch=on`) says so in its reports: `plylab report`'s
tables (a note) and JSON (each row's `batch`), the site's matchup rows, and `plylab suite report`.
The setting is read from the stored spec. Played against a real loopback OpenAI-compatible server,
which has no batch API, so each call is answered alone: the setting, not the price, is what is checked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import run_args
from tests.support.fake_openai_server import FakeOpenAIServer

NOTE = "replies from a batch"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    monkeypatch.setenv("BATCHED_API_KEY", "sk-batched")
    with FakeOpenAIServer(api_key="sk-batched") as srv:
        yield srv


def spec(server: FakeOpenAIServer, extra: str = "") -> str:
    return f"llm:model=openai-api/batched/m,base_url={server.url}{extra}"


@pytest.mark.slow
def test_plylab_report_says_which_replies_came_from_a_batch(cli, tmp_path: Path, server) -> None:  # noqa: ANN001
    store = tmp_path / "s.sqlite"
    batched, plain = spec(server, ",batch=on"), spec(server)
    for player in (batched, plain):
        res = cli(*run_args("tic_tac_toe", player, "random", games=2, store=store))
        assert res.code == 0, res.err
    table = cli("report", "--store", str(store))
    assert table.code == 0, table.err
    notes = [line for line in table.out.replace("\n", " ").split(NOTE)[1:]]
    assert len(notes) == 1 and "batch=on" in notes[0]  # one note, naming the batched spec only
    assert "batch=on asked through the provider's batch API" in " ".join(table.out.split())
    rows = json.loads(cli("report", "--store", str(store), "--format", "json").out)["matchups"]
    by_player = {r["player"]: r["batch"] for r in rows}
    assert len(by_player) == 2
    assert [b for p, b in by_player.items() if "batch=on" in p] == [["player"]]
    assert [b for p, b in by_player.items() if "batch=on" not in p] == [[]]
    pivot = json.loads(cli("report", "--store", str(store), "--table", "optimality", "--format", "json").out)
    assert sorted(r["batch"] for r in pivot["rows"]) == [[], ["player"]]

    site = tmp_path / "site"
    assert cli("report", "--store", str(store), "--html", str(site)).code == 0
    run_pages = {p.name: p.read_text() for p in (site / "runs").glob("run-*.html")}
    assert sorted(NOTE in text for text in run_pages.values()) == [False, True]


def test_an_unbatched_store_has_no_note(cli, tmp_path: Path, server) -> None:  # noqa: ANN001
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("tic_tac_toe", spec(server), "random", games=1, store=store)).code == 0
    assert NOTE not in cli("report", "--store", str(store)).out


@pytest.mark.slow
def test_plylab_suite_report_says_which_replies_came_from_a_batch(
    cli,  # noqa: ANN001
    tmp_path: Path,
    server,  # noqa: ANN001
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        cli("suite", "build", "ttt-4", "--game", "tic_tac_toe", "--positions", "4", "--seed", "1").code == 0
    )
    batched = spec(server, ",batch=on")
    res = cli("suite", "run", "ttt-4", "--player", batched, "--player", "random", "--store", "s.sqlite", "-q")
    assert res.code == 0, res.err
    text = cli("suite", "report", "--store", "s.sqlite")
    assert text.code == 0 and text.out.count(NOTE) == 1
    data = json.loads(cli("suite", "report", "--store", "s.sqlite", "--format", "json").out)
    rows = {r["player"]: r["batch"] for r in data["players"]["players"]}
    assert rows == {batched: ["player"], "random": []}
    site = tmp_path / "site"
    assert cli("report", "--store", "s.sqlite", "--html", str(site)).code == 0
    assert (site / "index.html").read_text().count(NOTE) == 1  # the suites section's players table
