"""The SAT oracle: exact agreement with brute-force enumeration of deals on small decks, and
never wrong on real classic games."""

from __future__ import annotations

import random
from itertools import combinations, product

import pytest

from plylab.clue.engine import load
from plylab.clue.events import Accusation, Suggestion
from plylab.clue.oracle import ClueOracle
from tests.support.clue import play_recorded


def all_deals(deck, sizes):
    """Every deal: card -> holder tuples (holder n = envelope) with the given hand sizes."""
    n = len(sizes)
    for envelope in product(*deck.categories):
        rest = [c for c in range(deck.size) if c not in envelope]

        def fill(cards, seat):
            if seat == n:
                yield {}
                return
            for hand in combinations(cards, sizes[seat]):
                left = [c for c in cards if c not in hand]
                for tail in fill(left, seat + 1):
                    yield {**{c: seat for c in hand}, **tail}

        for hands in fill(rest, 0):
            holder = [n] * deck.size
            for c, s in hands.items():
                holder[c] = s
            yield tuple(holder)


def looks_the_same(world, view):
    """Would `view.me` have seen exactly these events and this hand in `world`? (Rules, not clauses.)"""
    n, me = view.num_players, view.me
    if tuple(sorted(c for c in range(len(world)) if world[c] == me)) != view.hand:
        return False
    for e in view.events:
        if isinstance(e, Suggestion):
            first = next(
                (
                    (e.player + k) % n
                    for k in range(1, n)
                    if any(world[c] == (e.player + k) % n for c in e.cards)
                ),
                None,
            )
            if first != e.disprover or (e.shown is not None and world[e.shown] != e.disprover):
                return False
        elif isinstance(e, Accusation):
            if all(world[c] == n for c in e.cards) != e.correct:
                return False
    return True


def backbone(worlds, holders, size):
    out = {}
    for c in range(size):
        for h in range(holders):
            vals = {w[c] == h for w in worlds}
            out[(c, h)] = vals.pop() if len(vals) == 1 else None
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    "players,sizes,games",
    [(3, (2, 2, 2), 12), (3, (3, 3, 3), 8), (3, (2, 3, 3), 8), (4, (2, 2, 3), 10), (4, (3, 3, 3), 5)],
)
def test_oracle_equals_brute_force(players, sizes, games):
    game = load(players=players, suspects=sizes[0], weapons=sizes[1], rooms=sizes[2], turn_limit=14)
    deck = game.deck
    compared = 0
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_initial_state()
        state.deal_randomly(rng)
        worlds = list(all_deals(deck, state.hand_sizes))
        known = [[w for w in worlds if looks_the_same(w, state.view(p))] for p in range(players)]
        oracles = [ClueOracle.for_view(state.view(p)) for p in range(players)]
        while not state.is_terminal():
            if state.pending is not None:
                state.apply_action(rng.choice(state.show_options()))
            elif rng.random() < 0.12:  # accusations, right and wrong, exercise those clauses
                state.apply_action(game.accuse_action(rng.choice(deck.triples)))
            else:
                state.apply_action(game.suggest_action(rng.choice(deck.triples)))
            if state.pending is not None:
                continue
            for p in range(players):
                view = state.view(p)
                known[p] = [w for w in known[p] if looks_the_same(w, view)]
                assert tuple(state.holder) in known[p]
                oracles[p].update(view)
                truth = backbone(known[p], players + 1, deck.size)
                got = {(c, h): oracles[p].status(c, h) for c in range(deck.size) for h in range(players + 1)}
                assert got == truth, f"seed {seed}, player {p}, after {len(view.events)} events"
                compared += 1
        for o in oracles:
            o.close()
    assert compared > 50


@pytest.mark.slow
def test_oracle_never_wrong_and_solves_real_games():
    specs = ["clue-oracle", "clue-matrix", "clue-random", "clue-random", "clue-random", "clue-random"]
    solved = 0
    for seed in range(5):
        game, final, actions = play_recorded(specs, 100 + seed)
        state = game.new_initial_state()
        state.deal(final.envelope, final.hands)
        oracles = [ClueOracle.for_view(state.view(p)) for p in range(6)]
        for action in actions:
            state.apply_action(action)
            if state.pending is None:
                for p, o in enumerate(oracles):
                    o.update(state.view(p))
                    for card, holder in o.known_holders().items():
                        assert final.holder[card] == holder
                    for c in range(game.deck.size):
                        for h in range(7):
                            if o.status(c, h) is False:
                                assert final.holder[c] != h
        solved += all(o.solution() == tuple(sorted(final.envelope)) for o in oracles)
        assert final.winner is not None
        for o in oracles:
            o.close()
    assert solved == 5  # a right accusation makes the solution public


def test_model_is_a_consistent_deal():
    _, final, _ = play_recorded(["clue-oracle", "clue-random", "clue-random"], 3, turn_limit=12)
    view = final.view(1)
    oracle = ClueOracle.for_view(view)
    deal = oracle.model()
    assert deal is not None and looks_the_same(tuple(deal[c] for c in range(21)), view)
    truth = [[oracle.var(c, final.holder[c]) for c in range(21)]]
    # Twelve turns in, player 1 cannot have pinned down every card: a second deal exists, and it differs.
    other = oracle.model(avoid=[[-lit for lit in truth[0]]])
    assert other is not None and other != {c: final.holder[c] for c in range(21)}
    assert looks_the_same(tuple(other[c] for c in range(21)), view)
