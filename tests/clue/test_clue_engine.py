"""The rules engine: deal, who disproves, showing, accusations, turn order, limits, pyspiel API."""

from __future__ import annotations

import random

import pyspiel
import pytest

from plylab.clue.engine import GAME_NAME, load
from plylab.clue.events import Accusation, Pass, Suggestion


def dealt(players: int = 6, seed: int = 0, **kw):
    game = load(players=players, **kw)
    state = game.new_initial_state()
    state.deal_randomly(random.Random(seed))
    return game, state


def test_registered_with_pyspiel():
    assert GAME_NAME in pyspiel.registered_names()
    game = pyspiel.load_game(GAME_NAME, {"players": 4})
    assert game.num_players() == 4
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.num_distinct_actions() == 21 + 2 * 6 * 6 * 9 + 1
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 6  # envelope suspect first


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_deal_one_per_category_and_even_hands(players):
    for seed in range(20):
        game, state = dealt(players, seed)
        deck = game.deck
        assert [deck.category(c) for c in state.envelope] == [0, 1, 2]
        sizes = [len(h) for h in state.hands]
        assert max(sizes) - min(sizes) <= 1 and sum(sizes) == 18
        assert tuple(sizes) == state.hand_sizes
        assert sorted(c for h in state.hands for c in h) == sorted(set(range(21)) - set(state.envelope))
        assert state.current_player() == 0 and state.turn == 1


def test_deals_are_seeded():
    assert str(dealt(6, 7)[1]) == str(dealt(6, 7)[1])
    assert str(dealt(6, 7)[1]) != str(dealt(6, 8)[1])


def test_first_holder_clockwise_shows_and_only_a_held_card():
    game, state = dealt(6, 3)
    # build a suggestion seat 0 -> seats 1, 2 hold none; seat 3 holds one (or more)
    holder = state.holder
    target = next(c for c in range(21) if holder[c] == 3)
    cat = game.deck.category(target)
    others = [next(c for c in game.deck.categories[k] if holder[c] in (0, 6)) for k in range(3)]
    triple = tuple(target if k == cat else others[k] for k in range(3))
    state.apply_action(game.suggest_action(triple))
    assert state.current_player() == 3
    options = state.show_options()
    assert target in options and all(holder[c] == 3 for c in options)
    assert state.legal_actions() == sorted(options)
    with pytest.raises(ValueError):
        state.apply_action(next(c for c in triple if c not in options))
    state.apply_action(target)
    event = state.events[-1]
    assert event == Suggestion(1, 1, 0, triple, 3, target)
    assert state.current_player() == 1 and state.turn == 2


def test_nobody_disproves_a_suggestion_of_the_envelope():
    game, state = dealt(5, 1)
    state.apply_action(game.suggest_action(tuple(state.envelope)))
    assert state.events[-1] == Suggestion(1, 1, 0, tuple(state.envelope), None, None)
    assert state.current_player() == 1


def test_suggester_own_cards_are_not_shown_to_itself():
    game, state = dealt(3, 2)
    mine = state.hands[0]
    triple = tuple(next((c for c in mine if game.deck.category(c) == k), state.envelope[k]) for k in range(3))
    state.apply_action(game.suggest_action(triple))
    assert state.pending is None or state.pending[2] != 0


def test_wrong_accusation_is_out_but_still_shows():
    game, state = dealt(3, 5)
    wrong = (
        state.envelope[0],
        state.envelope[1],
        next(c for c in game.deck.categories[2] if c != state.envelope[2]),
    )
    state.apply_action(game.accuse_action(wrong))
    assert state.events[-1] == Accusation(1, 1, 0, wrong, False)
    assert state.out == {0} and not state.is_terminal() and state.current_player() == 1
    # seat 1 suggests a card only seat 0 holds: seat 2 has none of it, seat 0 (out) must show
    card = state.hands[0][0]
    cat = game.deck.category(card)
    triple = tuple(card if k == cat else state.envelope[k] for k in range(3))
    state.apply_action(game.suggest_action(triple))
    if state.pending is not None and state.pending[2] == 2:
        state.apply_action(state.show_options()[0])
    else:
        assert state.current_player() == 0
        state.apply_action(card)
    # play skips seat 0 from now on
    state.apply_action(game.pass_action)  # seat 2
    assert state.current_player() == 1 and state.round == 2 and state.turn == 4


def test_right_accusation_wins_and_ends():
    game, state = dealt(4, 9)
    state.apply_action(game.pass_action)
    state.apply_action(game.accuse_action(tuple(state.envelope)))
    assert state.is_terminal() and state.winner == 1
    assert state.returns() == [0.0, 1.0, 0.0, 0.0]
    assert isinstance(state.events[0], Pass) and state.events[-1].correct


def test_everyone_out_ends_the_game():
    game, state = dealt(3, 4)
    wrong = (
        state.envelope[0],
        state.envelope[1],
        next(c for c in game.deck.categories[2] if c != state.envelope[2]),
    )
    for _ in range(3):
        state.apply_action(game.accuse_action(wrong))
    assert state.is_terminal() and state.winner is None and state.returns() == [0.0] * 3


def test_turn_limit_and_rounds():
    game, state = dealt(3, 0, turn_limit=7)
    rounds = []
    while not state.is_terminal():
        rounds.append(state.round)
        state.apply_action(game.pass_action)
    assert len(state.events) == 7 and rounds == [1, 1, 1, 2, 2, 2, 3]


def test_information_state_is_the_players_view():
    game, state = dealt(4, 6)
    state.apply_action(game.suggest_action(game.deck.triples[100]))
    if state.pending:
        state.apply_action(state.show_options()[0])
    texts = [state.information_state_string(p) for p in range(4)]
    assert len(set(texts)) == 4
    for p in range(4):
        assert game.deck.describe(sorted(state.hands[p])) in texts[p]
    clone = state.clone()
    clone.apply_action(game.pass_action)
    assert len(clone.events) == len(state.events) + 1


def test_uneven_hands_small_deck():
    _, state = dealt(4, 0, suspects=2, weapons=2, rooms=3)
    assert state.hand_sizes == (1, 1, 1, 1)
    _, state = dealt(5, 0)
    assert state.hand_sizes == (4, 4, 4, 3, 3)


def test_openspiel_consistency_and_serialization():
    """OpenSpiel's own checker (chance, legal actions, clones, returns, serialization) on random play."""
    game = pyspiel.load_game(GAME_NAME, {"players": 3, "turn_limit": 30})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    _, state = dealt(4, 11, turn_limit=40)
    rng = random.Random(0)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    back = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(state.get_game(), state))[1]
    assert str(back) == str(state) and back.events == state.events and back.returns() == state.returns()


def test_a_pending_suggestion_is_public_but_the_options_are_not():
    game, state = dealt(4, 2)
    triple = next(t for t in game.deck.triples if state.disprover(0, t) == 2)
    state.apply_action(game.suggest_action(triple))
    views = [state.view(p) for p in range(4)]
    assert all(
        v.pending is not None and v.pending.cards == triple and v.pending.disprover == 2 for v in views
    )
    assert [v.show is not None for v in views] == [False, False, True, False]
    assert all("must show one of them" in state.information_state_string(p) for p in range(4))
