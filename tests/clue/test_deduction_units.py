"""Clue's deduction counts say their unit: per player-game (one seat in one game) and per game with
the row's seats summed, the seed's "per game" for each model (000 l.107, §4.2); both reported."""

from __future__ import annotations

from plylab.clue.metrics import PlayerGame, summarize
from plylab.paper.clue_tables import COLUMNS


def seat(game: int, incorrect: int, correct: int = 4) -> PlayerGame:
    pg = PlayerGame("baseline", "clue-llm:model=m", 3, False, game)
    pg.incorrect, pg.correct, pg.stated_by_round, pg.oracle_by_round = incorrect, correct, [0] * 3, [0] * 3
    return pg


def test_deductions_are_reported_per_player_game_and_per_model_game() -> None:
    # two games, the model holding three seats in each: 1+2+3 and 0+0+0 incorrect deductions
    pgs = [seat(1, 1), seat(1, 2), seat(1, 3), seat(2, 0), seat(2, 0), seat(2, 0)]
    ded = summarize(pgs, 18, "baseline", "clue-llm:model=m").deductions
    assert ded.unit == "player-game" and ded.incorrect_per_game == 1.0  # 6 over 6 seats
    model = ded.per_model_game
    assert model.games == 2 and model.incorrect_per_game == 3.0  # 6 over 2 games
    assert model.correct_per_game == 12.0


def test_the_paper_table_shows_the_seeds_unit_and_the_other_beside_it() -> None:
    cols = {key: (label, get) for key, label, get in COLUMNS["clue-deduction"]}
    g = summarize([seat(1, 1), seat(1, 2), seat(2, 3)], 18, "baseline", "clue-llm:model=m")
    label, get = cols["incorrect_per_game"]  # the key the seed's values are published under
    assert "seats summed" in label and get(g) == 3.0
    label, get = cols["incorrect_per_player_game"]
    assert "player-game" in label and get(g) == 2.0
