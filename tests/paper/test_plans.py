"""Protocols become exactly the paper's runs: matchups, opponents, games, shared runs, Clue seats."""

from __future__ import annotations

import pytest

from plylab.errors import UserError
from plylab.paper.plan import Options, clue_plans, play_plan
from plylab.paper.protocols import PROTOCOLS


def test_table3_plays_connect_four_against_random_and_the_papers_mcts():
    plan = play_plan(PROTOCOLS["table3"], Options("local"))
    assert plan.games == 10 and plan.name == "paper/table3/local"
    assert [(m.game, m.player, m.opponent) for m in plan.matchups] == [
        ("connect_four", "llm:model=local,effort=high", "random"),
        ("connect_four", "llm:model=local,effort=high", "mcts:sims=5000,solve=true"),
    ]


def test_tables_that_read_the_same_games_share_one_run():
    t4 = play_plan(PROTOCOLS["table4"], Options("local"))
    for name in ("table5", "table8", "table9", "table12"):
        other = play_plan(PROTOCOLS[name], Options("local"))
        assert (other.name, other.matchups) == (t4.name, t4.matchups)
    assert [m.formulation for m in t4.matchups] == [
        "standard",
        "hidden",
        "magic_square",
        "magic_square_plus5",
        "story",
    ]
    assert play_plan(PROTOCOLS["table13"], Options("local")).name == "paper/table10/local"


def test_table14_plays_three_efforts_and_tables_6_7_three_opponents():
    t14 = play_plan(PROTOCOLS["table14"], Options("local"))
    assert [m.player for m in t14.matchups] == [
        f"llm:model=local,effort={e}" for e in ("low", "medium", "high")
    ]
    t6 = play_plan(PROTOCOLS["table6"], Options("local", games=6, player_options="output=enum"))
    assert t6.games == 6
    assert [m.opponent for m in t6.matchups] == ["random", "mcts:sims=1000,solve=true", "optimal"]
    assert all(m.player.endswith(",output=enum") for m in t6.matchups)
    assert Options("local", games=6, player_options="output=enum").deviations(PROTOCOLS["table6"]) == [
        "player options output=enum (not the paper's)",
        "games per matchup 6 (paper: 100)",
    ]


def test_clue_study_seats_six_players_per_condition():
    plans = clue_plans(PROTOCOLS["clue-accuracy"], ["a/x", "b/y"], None, 0, 1)
    assert [p.condition for p in plans] == ["baseline", "matrix", "mixed"] and all(
        p.games == 6 for p in plans
    )
    for p in plans:
        assert len(p.specs) == 6 and sum("model=a/x" in s for s in p.specs) == 3
    mixed = plans[2].specs
    assert sum("matrix=on" in s for s in mixed) == 2  # one tool user per model family (000 l.95)
    one = clue_plans(PROTOCOLS["clue-delay"], ["a/x"], 2, 0, 1)
    assert all(len(p.specs) == 6 and p.games == 2 for p in one)
    with pytest.raises(UserError):
        clue_plans(PROTOCOLS["clue-delay"], [], None, 0, 1)
