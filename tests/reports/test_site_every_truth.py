"""The site for the games the one graded decision brought in: Go (no ground truth) said ungraded and
drawn as a Go board; backgammon and Pig graded in their own words, their worst positions drawn and
their moves named without OpenSpiel's action numbers, each play once; backgammon's figures on the
index, matchup and run pages equal to the terminal's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from plylab.cli import main
from tests.support.gnubg import GNUBG

pytestmark = pytest.mark.slow  # three games, a Pig table and gnubg: about a minute on two cores

RUNS = {
    "go": ["--game", "go:board_size=9", "--player", "random", "--opponent", "random"],
    "pig": ["--game", "pig", "--player", "random", "--opponent", "optimal"],
    "bg": ["--game", "backgammon", "--player", "random", "--opponent", "gnubg", "--score", "plies=0"],
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if GNUBG is None:
        pytest.skip("no gnubg (make engines installs it)")
    root = tmp_path_factory.mktemp("truths")
    store = root / "s.sqlite"
    for name, args in RUNS.items():
        assert (
            main(
                ["run", *args, "--games", "1", "--seed", "3", "--store", str(store), "--run", name, "--quiet"]
            )
            == 0
        )
    assert main(["report", "--store", str(store), "--html", str(root / "site")]) == 0
    return store, root / "site"


def _pages(site: Path, run: str, folder: str) -> list[str]:
    return [p.read_text() for p in sorted((site / folder).glob("*.html")) if f"run {run}" in p.read_text()]


def _payload(html: str) -> dict:
    return json.loads(re.search(r'id="game-data">(.*?)</script>', html, re.S).group(1))


def test_an_ungraded_game_says_it_is_ungraded(site) -> None:
    _, out = site
    (matchup,) = _pages(out, "go", "matchups")
    assert "ungraded" in matchup and "No non-optimal move" not in matchup
    (replay,) = _pages(out, "go", "games")
    game = _payload(replay)
    assert game["truth"] is None and all(s["decision"] is None for s in game["steps"])
    assert "win<i" not in replay  # no win / draw / loss key over moves nothing valued
    assert "ungraded" in replay


def test_go_is_drawn_on_the_intersections_with_its_coordinates(site) -> None:
    _, out = site
    (replay,) = _pages(out, "go", "games")
    svg = _payload(replay)["steps"][5]["svg"]
    assert 'class="grid"' in svg and svg.count('class="hoshi"') == 5  # 9x9: four 3-3 points and tengen
    files = re.findall(r'class="coord">([A-Z])<', svg)
    rows = re.findall(r'class="coord">(\d+)<', svg)
    assert files == list("ABCDEFGHJ") and rows == [str(n) for n in range(9, 0, -1)]  # as moves name them
    assert 'class="cell"' not in svg  # no squares: stones sit where the lines cross


def test_backgammon_and_pig_are_graded_in_their_own_words(site) -> None:
    _, out = site
    (bg,) = _pages(out, "bg", "games")
    game = _payload(bg)
    assert game["truth"]["kind"] == "engine" and game["truth"]["unit"] == "points"
    assert "against the equilibrium" not in bg and "exact, from" not in bg
    graded = [s for s in game["steps"] if s["decision"]]
    assert graded and all(not re.match(r"\d+ - ", s["label"]) for s in graded)
    (pig,) = _pages(out, "pig", "games")
    assert "No value line" not in pig and 'id="value-svg"' in pig


def test_worst_positions_are_drawn_and_name_each_best_play_once(site) -> None:
    _, out = site
    for run, piece in (("bg", 'class="checker"'), ("pig", 'class="score"')):
        (page,) = _pages(out, run, "matchups")
        worst = page[page.index('id="worst"') :]
        assert piece in worst, run
        assert not re.search(r"<b>\d+ - ", worst) and not re.search(r"best: \d+ - ", worst)
        for best in re.findall(r"best: ([^<]*?)\.</figcaption>", worst):
            names = best.split(", ")
            assert len(names) == len(set(names)), best


def test_pig_s_worst_positions_claim_no_ring(site) -> None:
    """Pig's drawing names the move played in words (nothing is ringed): the caption says it is marked."""
    _, out = site
    (page,) = _pages(out, "pig", "matchups")
    worst = page[page.index('id="worst"') :]
    assert "ringed" not in worst
    assert "×, marked)" in worst


def test_backgammon_says_the_terminals_numbers_on_every_page(site) -> None:
    store, out = site
    import io
    from contextlib import redirect_stdout

    text = io.StringIO()
    with redirect_stdout(text):
        assert main(["report", "--store", str(store), "--format", "json"]) == 0
    (row,) = json.loads(text.getvalue())["backgammon"]
    mp = f"{row['millipoints_per_decision']:.1f}"
    index = (out / "index.html").read_text()
    assert 'id="backgammon-table"' in index and mp in index
    (matchup,) = _pages(out, "bg", "matchups")
    assert f"{mp} mp/decision" in matchup
    run_page = next(p.read_text() for p in (out / "runs").glob("run-*.html") if "Run bg" in p.read_text())
    marks = row["doubtful"] + row["bad"] + row["very_bad"]
    assert f"{marks}/{row['decisions']}" in run_page
