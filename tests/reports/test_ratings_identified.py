"""Ratings only where the games identify them, on stores of real games (issue 30, point 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plylab.analysis.ratings import ANCHOR_ELO, Rating, Result, rate, ratings_by_game
from plylab.cli import main
from plylab.harness.store import Store
from plylab.reports import data
from tests.support.cli import run_args


def _play(store: Path, *matchups: tuple[str, str, str, int]) -> None:
    for k, (game, player, opponent, games) in enumerate(matchups):
        assert main([*run_args(game, player, opponent, games=games, store=store), "--run", f"r{k}"]) == 0


def _ratings(store: Path) -> dict[str, Rating]:
    s = Store(store, create=False)
    try:
        (table,) = ratings_by_game(data.rating_results(s, [r.id for r in s.runs()])).values()
    finally:
        s.close()
    return {r.player: r for r in table}


def _json_rows(store: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert main(["report", "--store", str(store), "--table", "ratings", "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def one_sided(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The issue's Connect Four: a player 0-0-2 against Optimal beside one 0-0-12 against it."""
    store = tmp_path_factory.mktemp("one-sided") / "s.sqlite"
    _play(store, ("connect_four", "mcts:sims=2", "optimal", 2), ("connect_four", "random", "optimal", 12))
    return store


@pytest.mark.slow
def test_players_no_game_orders_are_not_ranked_above_each_other(one_sided: Path) -> None:
    r = _ratings(one_sided)
    assert (r["random"].wins, r["random"].losses, r["mcts:sims=2"].losses) == (0, 12, 2)
    assert r["optimal"].rank == 1  # above everyone it played, and they are all it played
    assert r["mcts:sims=2"].rank is None and r["random"].rank is None  # they never met
    assert all(x.elo is None and not x.identified for x in r.values())  # nobody scored against optimal
    assert r["mcts:sims=2"].note == "below optimal"


def test_the_ratings_table_has_a_json_row_per_player(
    one_sided: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _json_rows(one_sided, capsys)
    rows = {row["player"]: row for row in out["ratings"]}
    assert set(rows) == {"optimal", "random", "mcts:sims=2"}
    assert rows["optimal"]["rank"] == 1 and rows["random"]["rank"] is None
    assert {row["identified"] for row in rows.values()} == {False}
    assert rows["random"]["rating"] is None and rows["random"]["low"] is None
    assert "identify no rating" in out["anchors"]["connect_four"]


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "latex"])
def test_the_ratings_table_prints_in_every_format(
    one_sided: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["report", "--store", str(one_sided), "--table", "ratings", "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert "mcts:sims=2" in out and "below optimal" in out


@pytest.fixture(scope="module")
def known_order(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tic-tac-toe where results join every pair both ways: optimal > mcts:sims=5 > random."""
    store = tmp_path_factory.mktemp("known-order") / "s.sqlite"
    _play(
        store,
        ("tic_tac_toe", "mcts:sims=5", "random", 8),
        ("tic_tac_toe", "mcts:sims=5", "optimal", 8),
        ("tic_tac_toe", "random", "optimal", 4),
    )
    return store


def test_a_known_ordering_is_rated_ranked_and_anchored_on_random(
    known_order: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = _ratings(known_order)
    assert all(x.identified for x in r.values())
    assert [r[p].rank for p in ("optimal", "mcts:sims=5", "random")] == [1, 2, 3]
    assert r["random"].elo == ANCHOR_ELO
    for x in r.values():
        assert x.low is not None and x.high is not None and x.elo is not None
        assert x.low <= x.elo <= x.high
    out = _json_rows(known_order, capsys)
    assert "random is exactly 1000" in out["anchors"]["tic_tac_toe"]


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_without_random_the_anchor_is_the_rated_players_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "s.sqlite"
    _play(
        store, ("connect_four", "mcts:sims=2", "optimal", 2), ("connect_four", "mcts:sims=20", "optimal", 12)
    )
    r = _ratings(store)
    rated = [x for x in r.values() if x.identified]
    assert {x.player for x in rated} == {"optimal", "mcts:sims=20"}  # the one won game joins them
    assert sum(x.elo or 0.0 for x in rated) / 2 == pytest.approx(ANCHOR_ELO)
    assert r["mcts:sims=2"].elo is None and r["mcts:sims=2"].rank == 3  # below both, by transitivity
    anchors = _json_rows(store, capsys)["anchors"]["connect_four"]
    assert "no random among the rated players" in anchors and "random is exactly" not in anchors


def test_the_issues_ladder_ranks_only_what_its_games_decide() -> None:
    """The site's Connect Four: a model 0-0-2 against optimal read above mcts, which lost 12 to
    optimal but beat random; optimal, never beaten, read a number the prior alone set."""
    results = [Result("optimal", "model", 1.0)] * 2 + [Result("optimal", "mcts", 1.0)] * 12
    results += [Result("mcts", "random", 1.0)] * 10 + [Result("mcts", "random", 0.0)] * 2
    r = {x.player: x for x in rate(results)}
    assert (
        r["optimal"].elo is None
        and r["optimal"].rank == 1
        and r["optimal"].note == "above mcts, model, random"
    )
    assert r["model"].elo is None and r["model"].rank is None  # it met neither mcts nor random
    assert r["mcts"].rank is None and r["random"].rank is None  # each is unordered against model
    assert r["random"].elo == ANCHOR_ELO and r["mcts"].elo is not None and r["mcts"].elo > ANCHOR_ELO
    for x in (r["mcts"], r["random"]):
        assert x.low is not None and x.elo is not None and x.high is not None
        assert x.low <= x.elo <= x.high


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_latex_and_site_say_who_is_unrated_and_where_the_scale_is_pinned(
    one_sided: Path, tmp_path: Path
) -> None:
    assert main(["report", "--store", str(one_sided), "--latex", str(tmp_path / "tex")]) == 0
    tex = (tmp_path / "tex" / "ratings-connect_four.tex").read_text()
    assert r"random & -- & -- & 0 & 0 & 12 \\" in tex and "identify no rating" in tex
    assert main(["report", "--store", str(one_sided), "--html", str(tmp_path / "site")]) == 0
    index = (tmp_path / "site" / "index.html").read_text()
    assert "exactly 1000" not in index and "identify no rating" in index and "below optimal" in index
