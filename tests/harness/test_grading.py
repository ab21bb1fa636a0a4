"""How a plan's moves are graded, settled below the CLI (harness/grading.py): `--score` checked against
the engine that grades each game and carried by every matchup, and the equilibria a run will ask."""

from __future__ import annotations

from pathlib import Path

import pytest

from plylab.errors import UserError
from plylab.harness.grading import oracle_games, scored, unbuilt_equilibria
from plylab.harness.plan import Matchup


def matchups(*games: str, player: str = "random", opponent: str = "random") -> list[Matchup]:
    return [Matchup(g, "standard", player, opponent) for g in games]


def test_on_keeps_the_matchups_and_off_unscores_every_one() -> None:
    plan = matchups("tic_tac_toe", "chess")
    assert scored(plan, "on") == plan
    assert [m.score for m in scored(plan, "off")] == [False, False]


@pytest.mark.parametrize(
    ("game", "score", "stored"),
    [
        ("chess", "nodes=5000", "nodes=5000"),
        ("chess", "depth=5", "depth=5"),
        ("chess", "nodes=20000", ""),  # the default limit is stored as none: the same run as `on`
        ("backgammon", "plies=1", "plies=1"),
        ("backgammon", "plies=2", ""),  # gnubg's analysis level, its default
    ],
)
def test_an_engine_limit_is_carried_by_each_matchup_as_its_engine_reads_it(
    game: str, score: str, stored: str
) -> None:
    assert [m.score_limit for m in scored(matchups(game, game), score)] == [stored, stored]


@pytest.mark.parametrize(
    ("games", "score", "says"),
    [
        (
            ("tic_tac_toe",),
            "depth=5",
            "--score depth=5 sets an engine's search limit, and tic_tac_toe is not scored",
        ),
        (("tic_tac_toe",), "fast", "--score 'fast' is not accepted"),  # malformed: said before "no engine"
        (("chess", "backgammon"), "nodes=10", "is one engine's limit; run chess-family games and backgammon"),
        (("backgammon",), "plies=9", "plies"),
    ],
)
def test_a_limit_no_engine_of_the_plan_reads_is_refused(
    games: tuple[str, ...], score: str, says: str
) -> None:
    with pytest.raises(UserError) as refused:
        scored(matchups(*games), score)
    assert says in str(refused.value)


def test_the_oracle_is_asked_where_moves_are_scored_or_a_player_plays_from_it() -> None:
    plan = [
        *scored(matchups("nim"), "off"),  # unscored, random players: never asked
        *scored(matchups("kuhn_poker", opponent="equilibrium:seed=1"), "off"),  # plays from it
        *matchups("tic_tac_toe", "tic_tac_toe"),  # scored, listed once
    ]
    assert oracle_games(plan) == ["kuhn_poker", "tic_tac_toe"]


def test_only_an_equilibrium_not_yet_cached_is_to_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLYLAB_CACHE", str(tmp_path))
    assert [g.spec for g in unbuilt_equilibria(["kuhn_poker", "tic_tac_toe", "chess"])] == ["kuhn_poker"]
