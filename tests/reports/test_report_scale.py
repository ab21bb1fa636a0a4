"""Reports grow with what they show, not with what is stored (issue 15 point 7), and the site's
optional sections never hide a broken module (issue 12 point 6)."""

from __future__ import annotations

import csv
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import records
from tests.support.cli import plylab_subprocess, run_args

GAMES = 20_000
MAX_RSS_MB = 250

# A fresh interpreter runs the command and reports its child's peak resident memory, so the
# figure is that command's own (RUSAGE_CHILDREN of pytest would include every earlier child).
MEASURE = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stderr.write(done.stderr)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _peak_mb(*args: str) -> float:
    res = subprocess.run(
        [sys.executable, "-c", MEASURE, sys.executable, "-m", "plylab", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    code, kb = res.stdout.split()
    assert code == "0", res.stderr
    return int(kb) / 1024  # Linux reports kilobytes


@pytest.fixture(scope="session")
def big_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20,000 real tic-tac-toe games (random against random, every move stored and scored)."""
    store = tmp_path_factory.mktemp("big") / "s.sqlite"
    res = plylab_subprocess(
        "run",
        "--game",
        "tic_tac_toe",
        "--player",
        "random",
        "--opponent",
        "random",
        "--games",
        str(GAMES),
        "--store",
        str(store),
        "--run",
        "big",
        "--quiet",
        timeout=600,
    )
    assert res.returncode == 0, res.stderr
    return store


@pytest.mark.slow
def test_report_and_export_memory_stay_flat_on_a_20000_game_store(big_store: Path, tmp_path: Path) -> None:
    assert _peak_mb("report", "--store", str(big_store)) < MAX_RSS_MB
    site = tmp_path / "site"
    assert _peak_mb("report", "--store", str(big_store), "--html", str(site)) < MAX_RSS_MB
    size_mb = sum(p.stat().st_size for p in site.rglob("*") if p.is_file()) / 1e6
    assert size_mb < 30, f"the site is {size_mb:.0f} MB"
    assert len(list((site / "games").glob("*.html"))) == 2 * 50, "50 replays per matchup and seat by default"
    pages = sorted((site / "runs").glob("run-*.html"))
    listed = sum(
        len(re.findall(r'<td data-sort="\d+"><a href="../games/|<td data-sort="\d+">game \d+', p.read_text()))
        for p in pages
    )
    assert listed == GAMES, "every stored game is listed on one of the run's pages"
    assert (
        _peak_mb("export", str(tmp_path / "moves.csv"), "--store", str(big_store), "--table", "moves") < 200
    )
    with open(tmp_path / "moves.csv", newline="") as fh:
        exported = sum(1 for _ in csv.reader(fh)) - 1
    with sqlite3.connect(big_store) as conn:
        assert exported == conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
    conn.close()


def _small_store(cli, path: Path, games: int) -> Path:
    res = cli(*run_args("tic_tac_toe", "random", "optimal", games=games, store=path), "--run", "small")
    assert res.code == 0, res.err
    return path


@pytest.mark.slow
def test_the_site_pages_game_lists_and_caps_replays(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from plylab.reports import site as site_module

    monkeypatch.setattr(site_module, "GAMES_PER_PAGE", 4)
    store = _small_store(cli, tmp_path / "s.sqlite", games=10)
    out = tmp_path / "site"
    res = cli("report", "--store", str(store), "--html", str(out), "--replays", "2")
    assert res.code == 0, res.err
    pages = [out / "runs" / n for n in ("run-1.html", "run-1-2.html", "run-1-3.html")]
    assert all(p.is_file() for p in pages) and not (out / "runs" / "run-1-4.html").exists()
    assert 'href="../runs/run-1-3.html"' in pages[0].read_text(), "each page links the others"
    # Seats switch after half: 5 games a seat, the first 2 of each by index get a replay.
    replays = sorted(int(p.stem) for p in (out / "games").glob("*.html"))
    assert len(replays) == 4
    links = {int(m) for p in pages for m in re.findall(r'href="../games/(\d+)\.html"', p.read_text())}
    assert links == set(replays), "a listed game links its replay only when the page exists"
    assert "first 2 games" in pages[0].read_text()
    every = tmp_path / "all"
    assert cli("report", "--store", str(store), "--html", str(every), "--replays", "0").code == 0
    assert len(list((every / "games").glob("*.html"))) == 10


@pytest.mark.slow
def test_a_broken_report_module_fails_loudly(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A learning run in the store and the module that plots it broken: the report fails, never
    quietly drops the section (issue 12 point 6)."""
    import plylab.analysis
    from plylab.harness.store import Store

    store_path = _small_store(cli, tmp_path / "s.sqlite", games=2)
    store = Store(store_path)
    store.open_run("learn.x", 0, {"phase": "learn"}, kind="learn")
    store.close()
    monkeypatch.delattr(plylab.analysis, "learning", raising=False)
    monkeypatch.setitem(sys.modules, "plylab.analysis.learning", None)  # importing it raises ImportError
    with pytest.raises(ImportError):
        cli("report", "--store", str(store_path), "--html", str(tmp_path / "site"))


@pytest.mark.slow
def test_a_long_reply_is_stored_once(cli, tmp_path: Path) -> None:
    """A 5 MB reply: the move's `reply` column holds it; its attempt refers to it instead of a
    second copy; the replay page and the export put it back (issue 15 point 7)."""
    import json

    from plylab.harness.store import Store
    from plylab.reports import data

    reply = "I think the best move is the centre. " * 140_000  # ~5.2 MB
    prompt = "Board:\n...\n...\n...\nYour move?"
    store_path = tmp_path / "s.sqlite"
    store = Store(store_path)
    run_id = store.open_run("r", 0, {})
    move = records.move(
        0,
        player="llm:model=x",
        legal=[4],
        action=4,
        action_label="b2",
        elapsed=1.0,
        prompt=prompt,
        reply=reply,
        calls=1,
        attempts=[
            {"prompt": prompt, "reply": "garbage", "failure": "parse"},
            {"prompt": prompt, "reply": reply},
        ],
    )
    store.save_game(run_id, records.game([move], player="llm:model=x", opponent="random", seed=1))
    store.close()
    with sqlite3.connect(store_path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        stored = conn.execute("SELECT length(reply), length(attempts) FROM moves").fetchone()
    conn.close()
    assert stored[0] == len(reply) and stored[1] < 1000, "the attempt refers to the reply, no second copy"
    assert store_path.stat().st_size < 1.2 * len(reply)
    reader = Store(store_path, create=False)
    row = reader.moves(reader.games()[0].id)[0]
    payload = data.replay_payload(reader.games()[0], [row], "r")
    reader.close()
    attempts = payload["steps"][0]["attempts"]
    assert [a["reply"] for a in attempts] == ["garbage", reply] and [a["prompt"] for a in attempts] == [
        prompt
    ] * 2
    assert cli("export", str(tmp_path / "m.csv"), "--store", str(store_path), "--table", "moves").code == 0
    csv.field_size_limit(1 << 30)
    exported = next(csv.DictReader(open(tmp_path / "m.csv")))
    assert json.loads(exported["attempts"])[1]["reply"] == reply
