"""Recognition patterns: a trace that names the underlying game counts; look-alike words do not."""

from __future__ import annotations

import pytest

from plylab.analysis.recognition import names_game, recognizer
from plylab.games import get_game

NAMED = {
    "tic_tac_toe": [
        "This is just tic-tac-toe with numbers.",
        "It's Tic Tac Toe in disguise",
        "a TicTacToe board",
        "tick-tack-toe",
        "the classic game of noughts and crosses",
        "Naughts & Crosses",
        "map it onto X and O",
        "like Xs and Os",
        "X's & O's",
        "in Italy this is called tris",
        "le morpion",
        "tres en raya",
    ],
    "nim": [
        "This is misère Nim.",
        "the nim-sum is 0",
        "compute the nimsum",
        "Nim's losing positions",
        "a Nim-like game",
        "each pile has a nimber",
        "the misere convention",
        "the game of Marienbad",
    ],
    "connect_four": [
        "this is Connect Four",
        "connect-4 strategy",
        "Connect4",
        "an old game called Four in a Row",
        "the captain's mistress",
    ],
}

NOT_NAMED = {
    "tic_tac_toe": [
        "three in a row wins",
        "the numbers 2, 7 and 6 sum to 15",
        "let x and o be unknowns",
        "B and W alternate",
        "a magic square",
        "tactic: take the center",
        "the toe of the river bank",
        "tristan claims 5",
    ],
    "nim": [
        "be nimble",
        "the minimum is 1",
        "unanimous",
        "a nimbus of light",
        "Nimrod",
        "I feel miserable",
        "take the minimal number of stones",
        "animation",
    ],
    "connect_four": [
        "connect the dots",
        "four discs in a line",
        "connected four times",
    ],
}


@pytest.mark.parametrize(("game_name", "text"), [(g, t) for g, ts in NAMED.items() for t in ts])
def test_names(game_name: str, text: str) -> None:
    assert names_game(get_game(game_name), text)


@pytest.mark.parametrize(("game_name", "text"), [(g, t) for g, ts in NOT_NAMED.items() for t in ts])
def test_does_not_name(game_name: str, text: str) -> None:
    assert not names_game(get_game(game_name), text)


def test_games_do_not_recognize_each_other() -> None:
    assert not names_game(get_game("nim"), NAMED["tic_tac_toe"][0])
    assert not names_game(get_game("tic_tac_toe"), NAMED["nim"][0])


def test_empty_text_and_pattern_override() -> None:
    game = get_game("nim")
    assert not names_game(game, "")
    assert not names_game(game, None)
    assert not names_game(game, "Nim", patterns=())
    assert names_game(game, "a subtraction game", patterns=[r"subtraction\s+game"])
    assert recognizer(()) is None
