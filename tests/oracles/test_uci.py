"""OpenSpiel's chess family maps to python-chess exactly: both sides' legal moves agree at every ply."""

from __future__ import annotations

import random

import pytest

from plylab.games import get_game
from plylab.oracles.uci import fen_of, mapping, maps


def _random_plies(game: str, games: int, plies: int, seed: int = 0):
    """Every position of `games` random games (each cut at `plies`), with its mapping."""
    rng = random.Random(seed)
    for _ in range(games):
        state = get_game(game).new_state()
        for _ in range(plies):
            if state.is_terminal():
                break
            yield state, mapping(game, state)
            state.apply_action(rng.choice(state.legal_actions()))


def _check_bijection(state, m) -> None:
    assert sorted(m.to_move) == sorted(state.legal_actions())
    assert {m.to_action[m.uci(a)] for a in m.to_move} == set(state.legal_actions())  # back and forth
    if type(m.board).__name__ == "Board":  # a variant board writes its pockets its own way
        assert m.board.fen().split()[:4] == fen_of(state).split()[:4]


@pytest.mark.slow  # 300 games: seconds, in `make test` only
def test_chess_legal_moves_agree_at_every_ply_of_300_random_games() -> None:
    positions = 0
    for state, m in _random_plies("chess", 300, 16):
        assert m.exact, fen_of(state)
        _check_bijection(state, m)
        positions += 1
    assert positions > 4500


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_long_random_chess_games_reach_castling_promotion_and_mate_mapped_exactly() -> None:
    seen = set()
    for state, m in _random_plies("chess", 6, 400, seed=3):
        assert m.exact, fen_of(state)
        for move in m.to_move.values():
            if m.board.is_castling(move):
                seen.add("castling")
            if move.promotion:
                seen.add("promotion")
            if m.board.is_en_passant(move):
                seen.add("en passant")
    assert seen == {"castling", "promotion", "en passant"}


@pytest.mark.slow
def test_crazyhouse_maps_exactly_drops_and_promoted_pieces_included() -> None:
    drops = promoted = 0
    for state, m in _random_plies("crazyhouse", 40, 120, seed=1):
        assert m.exact, fen_of(state)
        _check_bijection(state, m)
        drops += any(mv.drop for mv in m.to_move.values())
        promoted += "~" in fen_of(state)
    assert drops > 100 and promoted > 0


@pytest.mark.slow
def test_antichess_maps_except_where_openspiel_lets_an_en_passant_capture_be_declined() -> None:
    """OpenSpiel's antichess does not make an en-passant capture compulsory: only those positions
    differ (and are left unscored); every other position maps exactly."""
    inexact = exact = 0
    for state, m in _random_plies("antichess", 60, 80, seed=0):
        if m.exact:
            exact += 1
            _check_bijection(state, m)
        else:
            inexact += 1
            assert any(m.board.is_en_passant(mv) for mv in m.board.legal_moves), fen_of(state)
    assert exact > 2000 and inexact < exact / 100


def test_shogi_and_xiangqi_do_not_map() -> None:
    assert maps("chess") and maps("antichess") and maps("crazyhouse")
    assert not maps("shogi") and not maps("xiangqi") and not maps("chess:chess960=true")
