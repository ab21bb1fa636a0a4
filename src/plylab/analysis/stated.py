"""The exploitability of a model's *stated* strategy (issue 41): ask it once at every information set.

An `llm` player with `output=distribution` states a probability for each legal move. In a game small
enough to ask at every information set of both seats (Kuhn poker has 12), those answers are a whole
behaviour strategy, and OpenSpiel's `exploitability` gives what a best response wins against it:
a measure of the strategy the model says it plays, beside the empirical one its sampled moves give.
An information set whose answer is unusable (no legal move, a provider failure) is played uniformly,
and counted; one whose numbers do not sum to 1 is rescaled to, and named.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import exploitability

from ..errors import UserError
from ..players.base import Turn

if TYPE_CHECKING:
    from ..games import Formulation, GameDef
    from ..players.llm import LLMPlayer

MAX_INFOSETS = 200  # one call each: a bound that keeps "every information set" a small suite


@dataclass(frozen=True)
class Stated:
    """A stated strategy: its exploitability, the information sets asked, and how many fell back."""

    exploitability: float
    infosets: int
    uniform: int  # information sets whose answer was unusable, played uniformly
    strategy: dict[str, dict[int, float]]  # information state -> action -> probability
    moves: dict[str, dict[int, str]]  # information state -> action -> its name there (the engine's)
    rescaled: dict[str, float | str]  # information state -> the sum its answer gave, where it was not 1


async def ask_every_infoset(player: LLMPlayer, game: GameDef, formulation: Formulation) -> Stated:
    """Ask `player` (output=distribution) at one state of each information set of `game`."""
    if player.options.output != "distribution":
        raise UserError("a stated strategy needs an llm player with output=distribution")
    table = os_policy.TabularPolicy(game.engine)
    if len(table.states) > MAX_INFOSETS:
        raise UserError(
            f"game '{game.spec}' has {len(table.states):,} information sets; a stated strategy is asked "
            f"at each, at most {MAX_INFOSETS}"
        )
    strategy: dict[str, dict[int, float]] = {}
    moves: dict[str, dict[int, str]] = {}
    rescaled: dict[str, float | str] = {}
    uniform = 0
    for key, state in zip(table.state_lookup, table.states, strict=True):
        seat = int(state.current_player())
        turn = Turn(game, formulation, state.clone(), seat, len(state.history()), f"stated:{key}")
        answer = await player.stated(turn)
        legal = state.legal_actions()
        if answer is None:
            uniform += 1
            stated = {a: 1.0 / len(legal) for a in legal}
        else:
            stated = answer.probs
            if answer.rescaled:
                rescaled[key] = answer.said
        probs = table.policy_for_key(key)
        probs[:] = 0.0
        for action, p in stated.items():
            probs[action] = p
        strategy[key] = stated
        moves[key] = {a: state.action_to_string(seat, a) for a in legal}
    return Stated(
        float(exploitability.exploitability(game.engine, table)),
        len(table.states),
        uniform,
        strategy,
        moves,
        rescaled,
    )


def stated_exploitability(player: LLMPlayer, game: GameDef, formulation: Formulation) -> Stated:
    """`ask_every_infoset`, run to the end (outside an event loop)."""
    return asyncio.run(ask_every_infoset(player, game, formulation))
