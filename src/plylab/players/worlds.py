"""Worlds a seat cannot tell from the real one: for MCTS on hidden-information games that OpenSpiel
cannot resample (liar's dice, phantom tic-tac-toe).

A world is a history that gives the seat the same information state after every step as the game
played so far, the seat to move at the same steps, and over when it is over: the seat's own moves as played, every other move and chance outcome drawn at random
among those that keep its information the same (depth first, so a later observation that rules an
earlier guess out sends the search back). The real history is always one such world, so a world is
always found; nothing but the seat's own information strings steers the choice.
"""

from __future__ import annotations

import random

import pyspiel

from ..games.hidden import information

MAX_NODES = 20_000  # a search this long means the information set is too large to sample this way


class TooManyWorlds(Exception):
    """No world found within MAX_NODES steps."""


def sample_world(
    state: pyspiel.State, seat: int, rng: random.Random, max_nodes: int = MAX_NODES
) -> pyspiel.State:
    """A state with the same information for `seat` as `state`, at every step of its history;
    TooManyWorlds when none is found within `max_nodes` steps (go fish: hidden hands of many cards)."""
    game = state.get_game()
    history = [int(a) for a in state.history()]
    walk = game.new_initial_state()
    seen, movers = [""], []
    for a in history:
        movers.append(int(walk.current_player()))
        walk.apply_action(a)
        seen.append(information(walk, seat))
    budget = [max_nodes]

    def extend(s: pyspiel.State, i: int) -> pyspiel.State | None:
        if i == len(history):  # being asked to move, or told the game is over, is information too
            asked = int(s.current_player()) == seat
            same = asked == (int(state.current_player()) == seat) and s.is_terminal() == state.is_terminal()
            return s if same else None
        mover = int(s.current_player())
        if (mover == seat) != (movers[i] == seat):  # the seat moves at other times here: not its game
            return None
        if mover == seat:
            choices = [history[i]]
        elif s.is_chance_node():
            outcomes = s.chance_outcomes()
            # chance draws in proportion to their probability (a weighted shuffle)
            keyed = sorted(outcomes, key=lambda op: rng.random() ** (1.0 / op[1]) if op[1] > 0 else 0.0)
            choices = [int(o) for o, _ in reversed(keyed)]
        else:
            choices = [int(a) for a in s.legal_actions()]
            rng.shuffle(choices)
        for a in choices:
            budget[0] -= 1
            if budget[0] < 0:
                raise TooManyWorlds(f"no world within {max_nodes} steps")
            child = s.child(a)
            if information(child, seat) == seen[i + 1]:
                found = extend(child, i + 1)
                if found is not None:
                    return found
        return None

    world = extend(game.new_initial_state(), 0)
    if world is None:  # cannot happen: the real history is consistent with itself
        raise TooManyWorlds("no consistent world")
    return world
