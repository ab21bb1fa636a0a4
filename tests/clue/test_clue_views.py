"""Hidden information: a seat's view and prompts are a function of its own observations.

For every seat of real games, at two cut points, the SAT oracle finds a different deal (another
envelope when one is possible) that the seat cannot rule out. The game is replayed in that deal,
with other seats' private reveals replaced by cards the disprover holds there. If anything a seat
did not observe (the envelope, other hands, reveals to others) reached its view, its prompt or its
OpenSpiel information state, the two replays would differ.
"""

from __future__ import annotations

import pytest

from plylab.clue.events import Suggestion
from plylab.clue.matrix import PossibilityMatrix
from plylab.clue.oracle import ClueOracle
from plylab.clue.prompts import messages
from tests.support.clue import play_recorded

SPECS = ["clue-oracle", "clue-matrix", "clue-random", "clue-random", "clue-random", "clue-matrix"]


def other_deal(state, player):
    """A deal `player` cannot tell from the real one: another envelope if possible, else any other."""
    oracle = ClueOracle.for_view(state.view(player))
    env = oracle.envelope
    deal = oracle.model(avoid=[[-oracle.var(c, env) for c in state.envelope]])
    if deal is None:
        deal = oracle.model(avoid=[[-oracle.var(c, state.holder[c]) for c in range(state.deck.size)]])
    oracle.close()
    return deal


def replay_views(game, actions, envelope, hands, player, k):
    """Replay actions[:k] in the given deal; shows that `player` does not see are re-chosen
    (player None: the plain replay)."""
    state = game.new_initial_state()
    state.deal(envelope, hands)
    views = [] if player is None else [state.view(player)]
    for action in actions[:k]:
        if (
            player is not None
            and state.pending is not None
            and player not in (state.pending[0], state.pending[2])
        ):
            action = state.show_options()[-1]
        state.apply_action(action)
        if player is not None:
            views.append(state.view(player))
    return state, views


def prompt(view):
    return messages(view, PossibilityMatrix.for_view(view))


@pytest.mark.slow
def test_views_depend_only_on_own_observations():
    envelope_changed = worlds = 0
    for seed in range(3):
        game, final, actions = play_recorded(SPECS, 40 + seed)
        boundaries = _turn_boundaries(game, final, actions)
        for cut in (boundaries[len(boundaries) // 3], boundaries[2 * len(boundaries) // 3], len(actions)):
            real, _ = replay_views(game, actions, final.envelope, final.hands, None, cut)
            for player in range(6):
                deal = other_deal(real, player)
                if deal is None:
                    continue
                alt_env = [next(c for c in cat if deal[c] == 6) for cat in game.deck.categories]
                alt_hands = [[c for c in range(21) if deal[c] == s] for s in range(6)]
                a_state, a_views = replay_views(game, actions, alt_env, alt_hands, player, cut)
                r_state, r_views = replay_views(game, actions, final.envelope, final.hands, player, cut)
                assert a_state.holder != r_state.holder
                assert a_views == r_views
                assert a_state.information_state_string(player) == r_state.information_state_string(player)
                for av, rv in zip(a_views, r_views):
                    if av.show is None:
                        assert prompt(av) == prompt(rv)
                worlds += 1
                envelope_changed += sorted(alt_env) != sorted(final.envelope)
                # the replays really differ for someone who saw more
                assert any(a_state.view(q) != r_state.view(q) for q in range(6) if q != player)
    assert worlds >= 40 and envelope_changed >= 30


def _turn_boundaries(game, final, actions):
    """Action counts after which no show is pending (cut points between turns)."""
    state = game.new_initial_state()
    state.deal(final.envelope, final.hands)
    out = [0]
    for i, action in enumerate(actions, 1):
        state.apply_action(action)
        if state.pending is None:
            out.append(i)
    return out


def test_reveals_reach_only_suggester_and_disprover():
    _, final, _ = play_recorded(SPECS, 7)
    shown = [e for e in final.events if isinstance(e, Suggestion) and e.shown is not None]
    assert shown
    for p in range(6):
        view = final.view(p)
        assert view.hand == tuple(sorted(final.hands[p]))
        for e in view.events:
            if isinstance(e, Suggestion) and e.shown is not None:
                assert p in (e.player, e.disprover)
        seen = sum(1 for e in view.events if isinstance(e, Suggestion) and e.shown is not None)
        assert seen == sum(1 for e in shown if p in (e.player, e.disprover))
