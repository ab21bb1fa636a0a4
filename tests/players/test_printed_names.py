"""One name everywhere: a run name plylab made from the specs as given prints them canonically
(`solve=off` as `solve=false`, as every table writes the player), while the store keeps the name
it made, so old stores still resume by it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from plylab.players.canonical import printed_run_name
from tests.support.cli import run_args


def test_made_names_print_their_specs_canonically_and_given_names_as_given() -> None:
    assert (
        printed_run_name("tic_tac_toe.standard.mcts:solve=off,sims=20-vs-random.s0.n2")
        == "tic_tac_toe.standard.mcts:sims=20,solve=false-vs-random.s0.n2"
    )
    agent = "reaper:model=local,force_final=on"
    assert (
        printed_run_name(f"learn.tic_tac_toe.standard.{agent}-vs-optimal.s0/run1/eval2")
        == "learn.tic_tac_toe.standard.reaper:model=local,force_final=true-vs-optimal.s0/run1/eval2"
    )
    for given in ("ttt-llm", "paper/003/gpt-5-nano", "a.b.c-vs-d"):
        assert printed_run_name(given) == given


@pytest.mark.slow
def test_report_prints_a_runs_name_with_canonical_specs(tmp_path: Path, cli) -> None:
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("tic_tac_toe", "mcts:sims=20,solve=off", "random", games=2, store=store)).code == 0
    assert cli(*run_args("tic_tac_toe", "random", "random", games=2, store=store)).code == 0
    (stored,) = (n for (n,) in sqlite3.connect(store).execute("SELECT name FROM runs") if "mcts" in n)
    assert "solve=off" in stored, "the store keeps the name it made"
    for fmt in ("table", "csv", "markdown", "latex"):  # JSON's `run` is the stored key, for machines
        out = cli("report", "--store", str(store), "--format", fmt).out.replace(r"\_", "_")
        assert "solve=false" in out and "solve=off" not in out, fmt

    # the name as printed (copied from the table) selects the run, as the stored one does
    shown = printed_run_name(stored)
    for name in (stored, shown):
        out = cli("report", "--store", str(store), "--run", name, "--format", "csv")
        assert out.code == 0 and "mcts:sims=20" in out.out and "random,random" not in out.out, name
        logs = tmp_path / f"logs-{name == shown}"
        assert cli("export", str(logs), "--format", "inspect", "--store", str(store), "--run", name).code == 0
        assert len(list(logs.rglob("*.eval"))) == 1


def _site_text(cli, store: Path, out: Path) -> str:
    """Every page and script of the site `plylab report --html` writes, as one text (without the
    `<wbr>`s a run's name may wrap at)."""
    assert cli("report", "--store", str(store), "--html", str(out)).code == 0
    text = "\n".join(p.read_text() for p in sorted(out.rglob("*")) if p.suffix in (".html", ".js"))
    return text.replace("<wbr>", "")


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_run_prints_its_specs_canonically_from_its_first_line_to_the_site(tmp_path: Path, cli) -> None:
    """`plylab run`'s first line, progress and summary, and the site's runs list, run pages,
    matchup pages and replays printed the name as made (`solve=off`); the tables said `solve=false`."""
    store = tmp_path / "s.sqlite"
    for games in (2, 4):  # two runs of one matchup: the site names their runs beside the matchup
        res = cli(*run_args("tic_tac_toe", "mcts:solve=off,sims=20", "random", games=games, store=store))
        assert res.code == 0, res.err
        shown = f"tic_tac_toe.standard.mcts:sims=20,solve=false-vs-random.s0.n{games}"
        assert res.err.splitlines()[0] == f"run '{shown}': {games} games to play, no model calls"
        assert res.out.startswith(f"run '{shown}' finished: {games}/{games} games saved")
        assert "solve=off" not in res.out + res.err
    missing = cli("report", "--store", str(store), "--run", "nope")
    assert missing.code == 2 and "mcts:sims=20,solve=false-vs-random.s0.n2" in missing.err
    assert "solve=off" not in missing.err  # the runs it offers, as they are printed (and selected)
    site = _site_text(cli, store, tmp_path / "site")
    assert '"runs/run-1.html">tic_tac_toe.standard.mcts:sims=20,solve=false-vs-random.s0.n2</a>' in site
    assert "solve=off" not in site


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_learn_prints_its_specs_canonically_from_its_first_line_to_the_site(
    tmp_path: Path, cli, monkeypatch
) -> None:
    """`plylab learn`'s first line and summary, and its phases in the site's runs list, printed
    `force_final=on` as typed; every table wrote `force_final=true`."""
    from tests.support.fake_openai_server import FakeOpenAIServer

    store = tmp_path / "s.sqlite"
    agent = "reaper:model=openai-api/fake/m,force_final=on,iterations=1"
    args = ["learn", "--game", "nim", "--player", agent, "--opponent", "random", "--runs", "1"]
    args += ["--epochs", "1", "--learn-games", "1", "--eval-games", "1", "--store", str(store), "--quiet"]
    monkeypatch.setenv("FAKE_API_KEY", "sk-fake")
    with FakeOpenAIServer(api_key="sk-fake") as server:
        monkeypatch.setenv("FAKE_BASE_URL", server.url)
        res = cli(*args)
    assert res.code == 0, res.err
    shown = "learn.nim.standard.reaper:model=openai-api/fake/m,force_final=true,iterations=1-vs-random.s0"
    assert res.err.splitlines()[0].startswith(f"learning '{shown}': 3 games to play;")
    assert res.out.startswith(f"learning '{shown}' finished: 3/3 games saved")
    assert "force_final=on" not in res.err + res.out.partition("; memories under")[0]  # a path stays a path
    site = _site_text(cli, store, tmp_path / "site")
    for phase in ("eval0", "learn1", "eval1"):  # the learn store's runs table
        assert f">{shown}/run0/{phase}</a>" in site
    assert "force_final=on" not in site
