"""The site of a store whose run mixes games (tic-tac-toe and Connect Four) and which holds one
matchup from two runs, in headless Chromium at 1280 px: links and filters keep to their matchup,
boards carry their coordinates and one colour per seat, n / p reach every move worth flagging."""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest

from plylab.cli import main
from tests.support.browser import browser_marks, chromium, open_file

pytestmark = browser_marks

PLAN = """
name: mixed
seed: 5
games_per_matchup: 2
games: [tic_tac_toe, connect_four]
formulations: [standard]
players: [random, "mcts:sims=20,uct_c=1.5"]
opponents: [optimal]
"""
# the shape of a learning run's name: the game, the whole agent spec and the seed
LEARN_NAME = (
    "learn.tic_tac_toe.standard.reaper:model=openai-api/fake/m,k=4,max_rules=3,answer=legal,"
    "force_final=true,update_max_tokens=256-vs-optimal.s0"
)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(store, site): one run of both games, and a second run of tic-tac-toe random vs optimal."""
    root = tmp_path_factory.mktemp("mixed")
    plan, store = root / "plan.yaml", root / "s.sqlite"
    plan.write_text(PLAN)
    assert main(["run", "--config", str(plan), "--store", str(store), "--quiet"]) == 0
    again = ["run", "--game", "tic_tac_toe", "--player", "random", "--opponent", "optimal"]
    assert main([*again, "--games", "2", "--seed", "1", "--store", str(store), "--run", "again", "-q"]) == 0
    assert main(["report", "--store", str(store), "--html", str(root / "site")]) == 0
    return store, root / "site"


@pytest.fixture(scope="module")
def long_named(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of a store whose one run has a learning run's long name (LEARN_NAME)."""
    root = tmp_path_factory.mktemp("long")
    store = str(root / "s.sqlite")
    play = ["run", "--game", "tic_tac_toe", "--player", "random", "--opponent", "optimal", "--games", "2"]
    assert main([*play, "--store", store, "--run", LEARN_NAME, "-q"]) == 0
    assert main(["report", "--store", store, "--html", str(root / "site")]) == 0
    return root / "site"


@pytest.fixture(scope="module")
def browser(mixed, long_named) -> Iterator[object]:  # stores first: playwright's loop blocks asyncio.run
    with chromium() as b:
        yield b


def _shot(page, name: str) -> None:
    """A full-page screenshot to look at, under $PLYLAB_SCREENSHOTS when set."""
    shots = os.environ.get("PLYLAB_SCREENSHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(shots) / f"{name}.png"), full_page=True)


def _listed_games(page) -> list[str]:
    return page.locator("table[data-table=games] tbody tr td:nth-child(3)").all_inner_texts()


def test_a_connect_four_matchups_games_link_opens_only_its_games(page, mixed) -> None:
    _, site = mixed
    for path in sorted((site / "matchups").glob("*.html")):
        open_file(page, path)
        if (
            "connect_four" in page.locator("p.lede").inner_text()
            and "mcts" in page.locator("h1").inner_text()
        ):
            break
    else:
        pytest.fail("no Connect Four mcts matchup page")
    page.locator("a", has_text="its games").click()
    page.wait_for_load_state("load")
    page.wait_for_function("document.getElementById('filter-status').textContent.includes('match')")
    assert page.locator("#filter-status").inner_text() == "2 of 8 games match"
    assert _listed_games(page) == ["connect_four", "connect_four"]
    assert page.locator("select[name=game]").input_value() == "connect_four"
    # the rows the filter drew wrap a spec after its commas, as the page's own rows do, not mid-word
    cells = page.locator("table[data-table=games] tbody td.key").evaluate_all(
        "cs => cs.map(c => c.innerHTML)"
    )
    assert "mcts:sims=20,<wbr>uct_c=1.5" in cells, cells
    _shot(page, "run-filtered-by-matchup")


def test_filter_choices_stand_in_the_address_and_a_shared_address_restores_them(page, mixed) -> None:
    _, site = mixed
    run = site / "runs" / "run-1.html"
    open_file(page, run)
    page.select_option("select[name=game]", "tic_tac_toe")
    page.select_option("select[name=outcome]", "loss")
    page.wait_for_function("document.getElementById('filter-status').textContent.includes('match')")
    shown = page.locator("#filter-status").inner_text()
    hash_ = page.evaluate("location.hash")  # the page's own: Playwright's `page.url` can lag a hash change
    address = unquote(hash_[1:])
    assert "game=tic_tac_toe" in address and "outcome=loss" in address and "player" not in address
    rows = _listed_games(page)
    open_file(page, run, hash_)
    page.wait_for_function("document.getElementById('filter-status').textContent.includes('match')")
    assert page.locator("#filter-status").inner_text() == shown
    assert _listed_games(page) == rows and set(rows) == {"tic_tac_toe"}


def test_index_plots_name_the_run_of_a_matchup_held_twice(mixed) -> None:
    _, site = mixed
    for name in ("optimality", "outcomes"):
        text = (site / "plots" / f"{name}.svg").read_text()
        # matplotlib writes each label's text as a comment beside its glyphs
        labels = {t for t in re.findall(r"<!-- (.*?) -->", text) if " vs " in t}
        tic_tac_toe = {t for t in labels if t.startswith("random vs optimal") and "run" in t}
        assert {t.rsplit("· run ", 1)[1] for t in tic_tac_toe} == {"mixed", "again"}, (name, labels)
        assert all("run" not in t for t in labels if t.startswith("mcts")), labels  # held once


def _game(store: Path, game: str, where: str = "1") -> int:
    conn = sqlite3.connect(store)
    try:
        return conn.execute(
            f"SELECT g.id FROM games g WHERE g.game=? AND g.num_moves >= 5 AND {where} ORDER BY g.id LIMIT 1",
            (game,),
        ).fetchone()[0]
    finally:
        conn.close()


def test_boards_carry_coordinates_and_one_colour_per_seat(page, mixed) -> None:
    store, site = mixed
    open_file(page, site / "games" / f"{_game(store, 'tic_tac_toe')}.html", "#ply=2")
    coords = page.locator("#board-svg svg text.coord").all_text_contents()
    assert coords == ["A", "B", "C", "1", "2", "3"]
    line = [page.locator(f"#value-svg polyline.seat{s}").get_attribute("stroke") for s in (0, 1)]
    x_mark = page.locator("#board-svg svg g.piece").first.get_attribute("stroke")  # X moved first
    o_mark = page.locator("#board-svg svg circle.piece").first.get_attribute("stroke")
    assert [x_mark, o_mark] == line
    assert [page.locator(f"p.chart-key .seat{s}").evaluate("e => e.style.color") for s in (0, 1)] != ["", ""]
    _shot(page, "replay-tic-tac-toe")

    open_file(page, site / "games" / f"{_game(store, 'connect_four')}.html", "#ply=3")
    assert page.locator("#board-svg svg text.coord").all_text_contents() == [str(c) for c in range(1, 8)]
    line = [page.locator(f"#value-svg polyline.seat{s}").get_attribute("stroke") for s in (0, 1)]
    # #ply=3 shown: the discs of plies 0 (seat 0), 1 (seat 1) and 2 (seat 0) on the board
    discs = set(
        page.locator("#board-svg svg circle.piece").evaluate_all("cs => cs.map(c => c.getAttribute('fill'))")
    )
    assert discs == set(line)
    _shot(page, "replay-connect-four")


def test_n_and_p_reach_moves_not_optimal_by_exact_score(page, mixed) -> None:
    store, site = mixed
    conn = sqlite3.connect(store)
    conn.row_factory = sqlite3.Row
    # a Connect Four game with a move that keeps its result but not its best score
    game_id = conn.execute(
        "SELECT g.id FROM games g JOIN moves m ON m.game_id=g.id WHERE g.game='connect_four' "
        "AND m.informative_score=1 AND m.optimal_score=0 AND NOT (m.informative=1 AND m.optimal=0) "
        "ORDER BY g.id LIMIT 1"
    ).fetchone()[0]
    moves = conn.execute("SELECT * FROM moves WHERE game_id=? ORDER BY ply", (game_id,)).fetchall()
    conn.close()

    def worth_flagging(m: sqlite3.Row) -> bool:
        not_optimal = m["informative"] == 1 and m["optimal"] == 0
        not_best_score = m["informative_score"] == 1 and m["optimal_score"] == 0
        return m["action"] is None or not_optimal or not_best_score

    flagged = [i for i, m in enumerate(moves) if i > 0 and worth_flagging(m)]  # the replay opens at 0
    open_file(page, site / "games" / f"{game_id}.html")
    page.wait_for_function("location.hash === '#ply=0'")  # the stepper is drawn and listening

    def ply() -> int:  # the page's own address: Playwright's `page.url` follows a hash change late
        return int(page.evaluate("location.hash").split("ply=")[1])

    reached = []
    for _ in flagged:
        page.keyboard.press("n")
        reached.append(ply())
    assert reached == flagged
    page.keyboard.press("p")
    assert ply() == (flagged[-2] if len(flagged) > 1 else flagged[-1])


def test_a_runs_table_with_a_learning_runs_long_name_fits_1280_px(page, long_named: Path) -> None:
    open_file(page, long_named / "index.html")
    box = page.locator("table[data-table=runs-table]").locator("xpath=..")
    width, room = box.evaluate("b => [b.scrollWidth, b.clientWidth]")
    assert width <= room, f"the runs table is {width} px wide in {room} px: its right columns are cut off"
    assert page.locator("table[data-table=runs-table] a", has_text="update_max_tokens").count() == 1
    _shot(page, "index-long-run-name")
