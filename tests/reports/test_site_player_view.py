"""The site as a player and a researcher look at it (issue 20), in a real headless Chromium: a
site built from real runs of tic-tac-toe (the local model among them), Nim, Connect Four, mnk and
hex, a Clue game, and Table 7 with its reference rows. Screenshots of a replay, a matchup page and
a paper page are written for a person to look at (into $PLYLAB_SHOTS when set)."""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from plylab.cli import main
from plylab.games import get_game
from plylab.games.nim import pile_sizes
from tests.support.browser import CHROMIUM, chromium, open_file
from tests.support.cli import run_args

pytestmark = [
    pytest.mark.browser,
    pytest.mark.model,
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no system Chromium at {CHROMIUM}"),
]

RUNS = [  # (run, game, player, opponent, games)
    ("ttt", "tic_tac_toe", "mcts:sims=50", "optimal", 2),
    ("ttt-local", "tic_tac_toe", "llm:model=local,output=enum", "random", 2),
    ("nim200", "nim", "random", "optimal", 200),
    ("c4", "connect_four", "mcts:sims=100", "random", 2),
    ("mnk", "mnk:m=3,n=4,k=3", "random", "optimal", 2),
    ("hex", "hex:board_size=3", "random", "optimal", 2),
]


def _plylab(*args: str) -> None:
    assert main(list(args)) == 0, f"plylab {' '.join(args)} failed"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, chat_server: str) -> Path:
    s = str(tmp_path_factory.mktemp("player-view") / "s.sqlite")
    for run, game, player, opponent, games in RUNS:
        _plylab(*run_args(game, player, opponent, games=games, store=s), "--run", run)
    _plylab(
        "clue", "run", "-p", "clue-matrix", "-p", "clue-oracle", "-p", "clue-random",
        "-p", "clue-matrix", "-p", "clue-random", "-p", "clue-matrix", "--games", "1", "--store", s, "-q",
    )  # fmt: skip
    # Table 7 with its reference rows; the model is the loopback server (it plays the first legal move)
    _plylab(
        "paper", "run", "table7", "--model", "openai-api/fake/m", "--games", "1", "--references",
        "--player-options", f"base_url={chat_server},output=json", "--store", s, "-q",
    )  # fmt: skip
    return Path(s)


@pytest.fixture(scope="module")
def site(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("player-view-site")
    _plylab("report", "--store", str(store), "--html", str(out))
    return out


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("PLYLAB_SHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def browser(site: Path) -> Iterator[object]:
    """Started after the site is built: the runs use asyncio, which Playwright's loop would block."""
    with chromium() as b:
        yield b


_open = open_file


def _db(store: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(store)
    conn.row_factory = sqlite3.Row
    return conn


def _no_overflow(page) -> None:
    """The page's main tables fit 1280 px: no table scrolls sideways, nor the page."""
    widths = page.eval_on_selector_all(".scroll", "els => els.map(e => [e.scrollWidth, e.clientWidth])")
    assert all(s <= c for s, c in widths), widths
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


CELLS = {"tic_tac_toe": 9, "connect_four": 42, "mnk:m=3,n=4,k=3": 12, "hex:board_size=3": 9}


def _pieces(game: str, state) -> int:
    if game == "nim":
        return sum(pile_sizes(state))
    return sum(ch in "xo" for ch in str(state))


@pytest.mark.parametrize("run", [r[0] for r in RUNS])
def test_each_replay_draws_one_board_and_a_value_line(page, site: Path, store: Path, run: str) -> None:
    conn = _db(store)
    g = conn.execute(
        "SELECT g.* FROM games g JOIN runs r ON r.id = g.run_id WHERE r.name = ? ORDER BY g.id LIMIT 1",
        (run,),
    ).fetchone()
    moves = conn.execute("SELECT * FROM moves WHERE game_id = ? ORDER BY ply", (g["id"],)).fetchall()
    engine = get_game(g["game"]).engine
    _open(page, site / "games" / f"{g['id']}.html")
    for ply, m in enumerate(moves):
        state = engine.deserialize_state(m["state"])
        assert page.locator("#board-svg svg").count() == 1
        assert page.locator("#board-svg svg .piece").count() == _pieces(g["game"], state)
        cells = int(page.locator("#board-svg svg").get_attribute("data-cells"))
        assert cells == (len(pile_sizes(state)) if g["game"] == "nim" else CELLS[g["game"]]), ply
        page.keyboard.press("ArrowRight")
    # the value line: a point per ply, a marker per non-optimal move
    mistakes = [i for i, m in enumerate(moves) if m["informative"] == 1 and m["optimal"] == 0]
    assert page.locator("#value-svg .point").count() == len(moves)
    assert page.locator("#value-svg .mistake").count() == len(mistakes)
    after = [k for k in mistakes if k > 0]
    if after:  # `n` from the first move goes to the next mistake; a click on the chart to its ply
        page.keyboard.press("Home")
        page.keyboard.press("n")
        assert page.locator("#position").inner_text().startswith(f"Ply {after[0]} (")
    page.locator(f'#value-svg [data-step="{len(moves) - 1}"]').click()
    assert page.locator("#position").inner_text().startswith(f"Ply {len(moves) - 1} (")


def test_n_and_p_walk_the_mistakes_of_a_connect_four_game(page, site: Path, store: Path, shots: Path) -> None:
    conn = _db(store)
    for g in conn.execute("SELECT g.id FROM games g JOIN runs r ON r.id = g.run_id WHERE r.name = 'c4'"):
        moves = conn.execute("SELECT * FROM moves WHERE game_id = ? ORDER BY ply", (g["id"],)).fetchall()
        mistakes = [i for i, m in enumerate(moves) if m["informative"] == 1 and m["optimal"] == 0 and i > 0]
        if len(mistakes) >= 2:
            break
    else:
        pytest.fail("no Connect Four game with two mistakes after the first move (random plays one side)")
    _open(page, site / "games" / f"{g['id']}.html")
    for k in mistakes:
        page.keyboard.press("n")
        assert page.locator("#position").inner_text().startswith(f"Ply {k} (")
    page.keyboard.press("p")
    assert page.locator("#position").inner_text().startswith(f"Ply {mistakes[-2]} (")
    _no_overflow(page)
    page.screenshot(path=str(shots / "replay.png"), full_page=True)


def test_filtering_200_games_to_lost_shows_exactly_the_lost_games(page, site: Path, store: Path) -> None:
    conn = _db(store)
    run_id, lost = conn.execute(
        "SELECT r.id, TOTAL(g.outcome = 'loss') FROM games g JOIN runs r ON r.id = g.run_id WHERE r.name = 'nim200'"
    ).fetchone()
    ids = {
        r[0] for r in conn.execute("SELECT id FROM games WHERE run_id = ? AND outcome = 'loss'", (run_id,))
    }
    _open(page, site / "runs" / f"run-{run_id}.html")
    page.select_option("select[name=outcome]", "loss")
    page.wait_for_function("document.getElementById('filter-status').textContent.includes('match')")
    rows = page.locator("table[data-table=games] tbody tr")
    assert rows.count() == int(lost) == len(ids)
    shown = rows.locator("td:first-child").all_inner_texts()
    assert {int(t.split()[-1]) for t in shown} == ids
    _no_overflow(page)


def test_a_matchup_row_opens_its_page(page, site: Path, shots: Path) -> None:
    _open(page, site / "index.html")
    _no_overflow(page)
    # anchors are valid ids, and every in-page link lands on one
    ids = page.eval_on_selector_all("[id]", "els => els.map(e => e.id)")
    assert all(re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", i) for i in ids), ids
    targets = page.eval_on_selector_all('a[href^="#"]', "as => as.map(a => a.getAttribute('href').slice(1))")
    assert targets and set(targets) <= set(ids)
    link = page.locator("table[data-table=matchups] tbody a", has_text="random").first
    link.click()
    page.wait_for_load_state("load")
    assert "/matchups/" in page.url and "random" in page.locator("h1").inner_text()
    assert page.locator("#by-move svg.chart, #by-move p.empty").count() == 1
    _no_overflow(page)
    page.screenshot(path=str(shots / "matchup.png"), full_page=True)


def test_the_paper_page_shows_the_published_numbers_beside_the_run(page, site: Path, shots: Path) -> None:
    _open(page, site / "index.html")
    page.locator("#paper a", has_text="table7").click()
    page.wait_for_load_state("load")
    rows = (
        page.locator("table.paper")
        .first.locator("tr")
        .evaluate_all("rows => rows.map(r => Array.from(r.cells).map(c => c.textContent.trim()))")
    )
    mine = [r for r in rows if len(r) > 2 and r[1] == "this run"]
    nano = [r for r in rows if r and r[0] == "GPT-5 nano"]
    assert mine and nano and nano[0][2] == "96", "the published 96/100 vs Random beside the run's row"
    assert page.locator("table.paper").count() == 2, "the reference rows have their own table"
    assert "line" in page.locator("details.cites").inner_text(), "the seed citation in words"
    _no_overflow(page)
    page.screenshot(path=str(shots / "paper.png"), full_page=True)
