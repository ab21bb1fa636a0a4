"""`plylab solve` for the three games, in each game's notation, and its refusals of bad input."""

from __future__ import annotations

import json

import pytest

from plylab.games import get_game
from tests.support.engines import needs_stockfish


def test_connect_four_start_in_json(cli) -> None:
    r = cli("solve", "--game", "connect_four", "--moves", "", "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert (out["value"], out["score"], out["best_moves"]) == ("win", 1, [4])
    assert out["move_values"] == {
        "1": {"value": "loss", "score": -2},
        "2": {"value": "loss", "score": -1},
        "3": {"value": "draw", "score": 0},
        "4": {"value": "win", "score": 1},
        "5": {"value": "draw", "score": 0},
        "6": {"value": "loss", "score": -1},
        "7": {"value": "loss", "score": -2},
    }


def test_connect_four_position_in_text(cli) -> None:
    r = cli("solve", "--game", "connect_four", "--moves", "4453")
    assert r.code == 0, r.err
    assert "value: loss (score -2)" in r.out
    assert "best moves: 3 6 7" in r.out


def test_tic_tac_toe_cells(cli) -> None:
    r = cli("solve", "--game", "tic_tac_toe", "--moves", "A1 B1", "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert (out["value"], out["score"]) == ("win", None)  # X wins after O's edge reply to a corner
    assert "B2" in out["best_moves"] and "B1" not in out["move_values"]
    assert out["move_values"]["B2"] == {"value": "win", "score": None}


def test_nim_pile_take(cli) -> None:
    r = cli("solve", "--game", "nim", "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert out["value"] == "loss"  # misère {1,3,5,7}: the first player loses
    assert out["best_moves"] == sorted(out["move_values"]) and "4:7" in out["move_values"]
    r = cli("solve", "--game", "nim", "--moves", "4:7", "--format", "json")
    assert json.loads(r.out)["value"] == "win"


@pytest.mark.parametrize("game", ["connect_four", "nim", "tic_tac_toe", "nim:pile_sizes=2;4;6"])
def test_printed_moves_parse_back(game: str) -> None:
    """A game's notation lives on the game: what `solve` prints, `--moves` reads back."""
    definition = get_game(game)
    assert definition.move_name is not None and definition.parse_moves is not None
    state = definition.new_state()
    for action in state.legal_actions():
        assert definition.parse_moves(definition, str(definition.move_name(definition, action))) == [action]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "tennis"], "unknown game 'tennis'"),
        (["--game", "connect_four", "--moves", "48"], "bad Connect Four move sequence '48'"),
        (["--game", "connect_four", "--moves", "4444444"], "move 7 of '4444444' is not legal there"),
        (["--game", "connect_four", "--moves", "1212121"], "the game is over after '1212121'"),
        (["--game", "connect_four", "--moves", "12121212"], "the game is over before move 8"),
        (["--game", "tic_tac_toe", "--moves", "B2 B2"], "move 2 of 'B2 B2' is not legal there"),
        (["--game", "tic_tac_toe", "--moves", "D4"], "bad tic-tac-toe move 'D4'"),
        (["--game", "nim", "--moves", "1:2"], "move 1 of '1:2' is not legal there"),
        (["--game", "nim", "--format", "xml"], "'xml' is not one of 'text', 'json'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, args: list[str], message: str) -> None:
    r = cli("solve", *args)
    assert r.code == 2
    assert r.out == ""
    assert r.err.count("\n") == 1 and r.err.startswith("plylab: error: ") and message in r.err


@pytest.mark.slow
def test_solve_takes_generic_and_parametrised_games(cli) -> None:
    """Any game with an oracle: moves in its listed labels (mnk), or Nim's PILE:TAKE under any piles."""
    r = cli("solve", "--game", "mnk:m=3,n=3,k=3", "--moves", "x(1,1) o(0,1)", "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert out["game"] == "mnk:k=3,m=3,n=3" and out["value"] == "win"  # an edge reply to the centre loses
    assert all(label.startswith("x(") for label in out["move_values"])
    r = cli("solve", "--game", "nim:pile_sizes=2;4;6", "--moves", "3:1", "--format", "json")
    assert r.code == 0 and json.loads(r.out)["best_moves"] == ["1:1"]
    bad = cli("solve", "--game", "mnk:m=3,n=3,k=3", "--moves", "x(9,9)")
    assert bad.code == 2 and "does not name a move" in bad.err


@needs_stockfish
def test_solve_gives_chess_the_engine_s_evaluation_and_best_line(cli) -> None:
    """Chess has no exact oracle: `solve` answers with the engine's evaluation and line (issue 38)."""
    r = cli("solve", "--game", "chess", "--moves", "e4 e5 Qh5 Nc6 Bc4 Nf6", "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert out["to_move_name"] == "White" and out["mate"] == 1 and out["evaluation"] == "#1"
    assert out["best_move"] == "Qxf7#" and out["line"] == ["Qxf7#"] and out["exact"] is False
    assert out["engine"] == "stockfish 15.1 nodes=20000"
    text = cli("solve", "--game", "chess", "--moves", "e4")
    assert text.code == 0 and "Black (seat 0) to move" in text.out and "best move: " in text.out
    assert "line: " in text.out and "not an exact value" in text.out
    over = cli("solve", "--game", "chess", "--moves", "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#")
    assert over.code == 2 and "nothing to solve" in over.err
    bad = cli("solve", "--game", "chess", "--moves", "e4 Ke7x")
    assert bad.code == 2 and "'Ke7x' does not name a move" in bad.err
