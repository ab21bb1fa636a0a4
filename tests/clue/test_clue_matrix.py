"""The possibility matrix: each rule on a hand-built scenario, soundness on real games."""

from __future__ import annotations

import pytest

from plylab.clue.cards import CLASSIC
from plylab.clue.events import Accusation, Suggestion
from plylab.clue.matrix import Mark, PossibilityMatrix
from plylab.clue.oracle import ClueOracle
from plylab.clue.view import ClueView
from tests.support.clue import play_recorded

D = CLASSIC
card = D.index
ENV = 6
HAND = (card("Miss Scarlet"), card("Knife"), card("Kitchen"))


def view(events=(), hand=HAND, sizes=(3,) * 6, me=0) -> ClueView:
    return ClueView(D, me, len(sizes), tuple(sorted(hand)), sizes, tuple(events), 1, 1, frozenset(), 150)


def matrix(*events, **kw) -> PossibilityMatrix:
    return PossibilityMatrix.for_view(view(events, **kw))


def S(player, names, disprover, shown=None, turn=1):
    cards = tuple(card(n) for n in names)
    return Suggestion(turn, 1, player, cards, disprover, None if shown is None else card(shown))


def test_r1_own_hand():
    m = matrix()
    for c in range(D.size):
        assert m.cell(c, 0) == (Mark.YES if c in HAND else Mark.NO)
    assert all(m.cell(c, h) == Mark.NO for c in HAND for h in range(1, 7))
    assert m.cell(card("Rope"), 3) == Mark.MAYBE


def test_r2_reveal_and_r3_passes():
    m = matrix(S(0, ("Mr. Green", "Rope", "Hall"), 3, "Rope"))
    assert m.cell(card("Rope"), 3) == Mark.YES
    assert all(m.cell(card("Rope"), h) == Mark.NO for h in (1, 2, 4, 5, ENV))  # R4 after R2
    for seat in (1, 2):  # R3: seats between suggester and disprover hold none
        assert all(m.cell(card(n), seat) == Mark.NO for n in ("Mr. Green", "Rope", "Hall"))
    assert m.cell(card("Mr. Green"), 3) == Mark.MAYBE and m.cell(card("Mr. Green"), 4) == Mark.MAYBE


def test_r3_nobody_disproved_wraps_around_the_table():
    m = matrix(S(4, ("Mr. Green", "Rope", "Hall"), None))
    for seat in (5, 0, 1, 2, 3):
        assert all(m.cell(card(n), seat) == Mark.NO for n in ("Mr. Green", "Rope", "Hall"))
    assert m.cell(card("Rope"), 4) == Mark.MAYBE and m.cell(card("Rope"), ENV) == Mark.MAYBE


def test_r4_one_holder_per_card():
    # nobody disproves seat 1's suggestion, nor mine with two of my own cards: Mr. Green is NO for
    # every seat, so it is in the envelope (R4), and no other suspect is (R6)
    m = matrix(
        S(1, ("Mr. Green", "Rope", "Hall"), None), S(0, ("Mr. Green", "Knife", "Kitchen"), None, turn=2)
    )
    assert all(m.cell(card("Mr. Green"), h) == Mark.NO for h in range(6))
    assert m.cell(card("Mr. Green"), ENV) == Mark.YES
    assert all(m.cell(card(s), ENV) == Mark.NO for s in D.suspects if s != "Mr. Green")
    assert m.cell(card("Rope"), 1) == Mark.MAYBE and m.cell(card("Rope"), ENV) == Mark.MAYBE


def test_r7_with_own_cards_pins_the_shown_card():
    # seat 0 asks about Hall with two of its own cards: seats 1..4 pass, seat 5 shows -> it must be Hall (R7)
    m = matrix(S(0, ("Miss Scarlet", "Knife", "Hall"), 5))
    assert m.cell(card("Hall"), 5) == Mark.YES  # R7 (two of the three are NO for seat 5 by R1/R4)
    # and Hall has one holder: everyone else NO, envelope NO (R4)
    assert all(m.cell(card("Hall"), h) == Mark.NO for h in (0, 1, 2, 3, 4, ENV))


def test_r5_full_hand_and_exact_hand():
    shows = [
        S(0, (s, w, "Kitchen"), 1, shown, turn=t)
        for t, (s, w, shown) in enumerate(
            [
                ("Mr. Green", "Rope", "Mr. Green"),
                ("Mrs. White", "Wrench", "Wrench"),
                ("Professor Plum", "Rope", "Professor Plum"),
            ],
            1,
        )
    ]
    m = matrix(*shows[:2])
    assert m.cell(card("Lounge"), 1) == Mark.MAYBE
    m = matrix(*shows)
    assert all(
        m.cell(c, 1) == Mark.NO
        for c in range(D.size)
        if c not in (card("Mr. Green"), card("Wrench"), card("Professor Plum"))
    )
    # exact: a 3-card hand with only three cards left possible is YES on all three
    rest = [
        c for c in range(D.size) if c not in HAND and c not in (card("Rope"), card("Hall"), card("Study"))
    ]
    m = matrix()
    for c in rest:
        m.cells[c][2] = Mark.NO
    m.deduce()
    assert all(m.cell(card(n), 2) == Mark.YES for n in ("Rope", "Hall", "Study"))


def test_r6_envelope_one_per_category_and_ready():
    suspects = ["Colonel Mustard", "Mrs. White", "Mr. Green", "Mrs. Peacock"]  # with Miss Scarlet in hand
    events = [S(0, (s, "Knife", "Kitchen"), 1, s, turn=t) for t, s in enumerate(suspects, 1)]
    m = matrix(*events)
    assert m.cell(card("Professor Plum"), ENV) == Mark.YES
    assert m.candidates()[0] == (card("Professor Plum"),)
    assert not m.ready and m.solution() is None
    weapons = ["Candlestick", "Lead Pipe", "Revolver", "Rope"]
    rooms = ["Ballroom", "Conservatory", "Dining Room", "Billiard Room", "Library", "Lounge", "Hall"]
    more = [S(0, ("Miss Scarlet", w, "Kitchen"), 2, w, turn=10 + t) for t, w in enumerate(weapons)]
    more += [S(0, ("Miss Scarlet", "Knife", r), 3, r, turn=20 + t) for t, r in enumerate(rooms)]
    m = matrix(*events, *more)
    assert m.ready and m.solution() == (card("Professor Plum"), card("Wrench"), card("Study"))


def test_r7_showed_one_of_three():
    m = matrix(S(1, ("Mr. Green", "Rope", "Hall"), 3))  # I (seat 0) only see that seat 3 showed
    assert m.cell(card("Rope"), 3) == Mark.MAYBE
    m = matrix(
        S(1, ("Mr. Green", "Rope", "Hall"), 3), S(0, ("Mr. Green", "Rope", "Kitchen"), 4, "Rope", turn=2)
    )
    # my own suggestion: seats 1..3 hold neither Green nor Rope -> seat 3 showed Hall
    assert m.cell(card("Hall"), 3) == Mark.YES


def test_r8_wrong_accusation():
    acc = Accusation(1, 1, 2, (card("Mr. Green"), card("Rope"), card("Hall")), False)
    m = matrix(acc)
    assert m.cell(card("Hall"), ENV) == Mark.MAYBE
    pins = [
        S(0, (s, "Knife", "Kitchen"), 1, s, turn=t)
        for t, s in enumerate(["Colonel Mustard", "Mrs. White", "Mrs. Peacock", "Professor Plum"], 2)
    ]
    pins += [
        S(0, ("Miss Scarlet", w, "Kitchen"), 2, w, turn=10 + t)
        for t, w in enumerate(["Candlestick", "Lead Pipe", "Revolver", "Wrench"])
    ]
    m = matrix(acc, *pins)
    assert m.cell(card("Mr. Green"), ENV) == Mark.YES and m.cell(card("Rope"), ENV) == Mark.YES
    assert m.cell(card("Hall"), ENV) == Mark.NO


def test_matrix_is_incomplete_where_the_oracle_is_not():
    # seat 3 (3 cards) disproved three disjoint triples for others: it holds one card of each, so
    # it holds nothing else. The oracle entails that; the matrix's rules do not combine constraints.
    triples = [
        ("Mr. Green", "Rope", "Hall"),
        ("Mrs. White", "Wrench", "Study"),
        ("Professor Plum", "Candlestick", "Lounge"),
    ]
    events = [S(2, t, 3, turn=k) for k, t in enumerate(triples, 1)]
    v = view(events)
    m, o = PossibilityMatrix.for_view(v), ClueOracle.for_view(v)
    assert m.cell(card("Library"), 3) == Mark.MAYBE
    assert o.status(card("Library"), 3) is False


@pytest.mark.slow
def test_matrix_facts_are_entailed_on_real_games():
    """Soundness: every YES/NO the matrix states is entailed by the oracle (hence true)."""
    specs = ["clue-matrix", "clue-random", "clue-oracle", "clue-random", "clue-matrix", "clue-random"]
    checked = 0
    for seed in range(4):
        game, final, actions = play_recorded(specs, seed)
        state = game.new_initial_state()
        state.deal(final.envelope, final.hands)
        matrices = [PossibilityMatrix.for_view(state.view(p)) for p in range(6)]
        oracles = [ClueOracle.for_view(state.view(p)) for p in range(6)]
        for action in actions:
            state.apply_action(action)
            if state.pending is not None:
                continue
            for p in range(6):
                v = state.view(p)
                matrices[p].update(v)
                oracles[p].update(v)
                for c in range(D.size):
                    for h in range(7):
                        mark = matrices[p].cell(c, h)
                        if mark != Mark.MAYBE:
                            assert oracles[p].status(c, h) is (mark == Mark.YES)
                            assert (final.holder[c] == h) is (mark == Mark.YES)
                            checked += 1
        for o in oracles:
            o.close()
    assert checked > 10000
