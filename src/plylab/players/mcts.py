"""OpenSpiel's C++ MCTS bot with a random-rollout evaluator: the paper's MCTS opponent.

Defaults are the paper's (seed 003, l.49): simulation budget n=1000 for tic-tac-toe and Nim and
n=5000 for Connect Four, "other hyperparameters ... the OpenSpiel defaults" -- uct_c=2, one random
rollout, and MCTS-Solver (`solve=true`, OpenSpiel's MCTSBot default and the paper's public code),
which backs proven wins and losses up the tree. `solve=false` (plain UCT, a weaker opponent) and
`sims=N` are opt-in keys.

On a hidden-information game `mcts` is information-set MCTS: OpenSpiel's Python ISMCTSBot ("adapted
from the C++ implementation": the same budget, uct_c, rollouts, unlimited world samples and final
policy, the C++ default -- the move drawn in proportion to its visits), which samples worlds from
the mover's information state. It runs on numpy streams seeded from the job's seed -- its tie-breaks
and final draw, its rollouts and the worlds it samples (a resampler that draws from that stream, not
OpenSpiel's unseeded default) -- so a game replays move for move. OpenSpiel's C++ ISMCTSBot does
not, whatever its seeds (the same bot, seeds and states give other moves even in one process: the
order it visits its hash maps in varies); it is 20-60 times faster per move
(bench/RESULTS-hidden.md) and stays an opt-in, `search=ismcts_cpp`. Where the engine cannot sample
worlds (liar's dice, phantom tic-tac-toe: no `ResampleFromInfostate`), it is determinized MCTS
instead: `worlds` worlds the mover cannot tell from the real one (players.worlds), the C++ MCTSBot
searching each with an equal share of the budget, and the move most visited over all of them played;
`search=determinized` plays that on every hidden-information game.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Literal

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts as os_ismcts
from open_spiel.python.algorithms import mcts as os_mcts
from pydantic import Field

from ..games import GameDef, get_game
from ..quiet import engine_quiet
from ..specs import Params
from .base import Decision, Player, Turn, register_player
from .worlds import TooManyWorlds, sample_world

# The paper's budgets per game (l.49); any other game gets DEFAULT_SIMS.
PAPER_SIMS = {"tic_tac_toe": 1000, "nim": 1000, "connect_four": 5000}
DEFAULT_SIMS = 1000


def paper_sims(game: str) -> int:
    """The simulation budget the paper uses for `game` (l.49)."""
    return PAPER_SIMS.get(game, DEFAULT_SIMS)


class MctsOptions(Params):
    sims: int | None = Field(None, ge=1, le=2**31 - 1)  # None: the paper's budget for the game (paper_sims)
    uct_c: float = Field(2.0, gt=0)
    rollouts: int = Field(1, ge=1, le=2**31 - 1)
    solve: bool = True  # MCTS-Solver, as OpenSpiel's default and the paper
    # hidden-information games the engine cannot resample: worlds searched per move (determinized MCTS)
    worlds: int = Field(10, ge=1, le=10_000)
    # hidden information: ismcts where OpenSpiel resamples (else determinized); ismcts_cpp the same
    # search in OpenSpiel's C++ bot (faster, but not reproducible from its seed); determinized always
    search: Literal["ismcts", "ismcts_cpp", "determinized"] = "ismcts"


@lru_cache(maxsize=256)
def _resamples(spec: str) -> bool:
    return resamples(get_game(spec))


def resamples(game: GameDef) -> bool:
    """Whether OpenSpiel samples a world from an information state in this game (ISMCTS needs it)."""
    state = game.new_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    if state.is_terminal():
        return False
    try:
        with engine_quiet():  # its "not implemented" goes to stderr before it raises
            state.resample_from_infostate(state.current_player(), pyspiel.UniformProbabilitySampler(0.0, 1.0))
    except pyspiel.SpielError:
        return False
    return True


def ismcts_bot(engine: pyspiel.Game, options: MctsOptions, sims: int, rng: random.Random) -> pyspiel.Bot:
    """OpenSpiel's Python ISMCTSBot with the C++ bot's defaults, drawing only from `rng`'s seeds.

    Its own stream breaks ties and draws the final move, a second one plays the rollouts, and the
    worlds come from a resampler that draws from the first: OpenSpiel's default resampler uses an
    unseeded sampler, which alone would make a game differ from run to run.
    """
    search = np.random.RandomState(rng.randrange(2**31))
    evaluator = os_mcts.RandomRolloutEvaluator(options.rollouts, np.random.RandomState(rng.randrange(2**31)))
    final = os_ismcts.ISMCTSFinalPolicyType.NORMALIZED_VISITED_COUNT  # the C++ bot's default
    bot = os_ismcts.ISMCTSBot(
        engine, evaluator, options.uct_c, sims, random_state=search, final_policy_type=final
    )
    bot.set_resampler(lambda state, seat: state.resample_from_infostate(seat, search.uniform))
    return bot


@register_player
class MctsPlayer(Player[MctsOptions]):
    Options = MctsOptions
    summary = (
        "OpenSpiel C++ MCTSBot (MCTS-Solver), random rollouts; sims=N (default: the paper's 1000 for "
        "tic-tac-toe and Nim, 5000 for Connect Four), solve=false for plain UCT, uct_c, rollouts; on "
        "hidden-information games information-set MCTS (search=ismcts_cpp: OpenSpiel's faster C++ "
        "ISMCTSBot, not reproducible from its seed), or determinized MCTS over `worlds` sampled worlds "
        "where the engine cannot resample (search=determinized: always)"
    )
    cpu_bound = True

    @property
    def sims(self) -> int:
        o = self.options
        return o.sims if o.sims is not None else paper_sims(self.game.name)

    def _bot(self) -> pyspiel.MCTSBot:
        bot = getattr(self, "_cached_bot", None)
        if bot is None:
            o = self.options
            seed = self.rng.randrange(2**31)
            self._evaluator = pyspiel.RandomRolloutEvaluator(o.rollouts, seed)
            bot = pyspiel.MCTSBot(
                self.game.engine, self._evaluator, o.uct_c, self.sims, 1000, o.solve, seed + 1, False
            )
            self._cached_bot = bot
        return bot

    def search(self, state: pyspiel.State) -> pyspiel.SearchNode:
        """One search from `state` with this player's bot; the root shows what the search proved."""
        return self._bot().mcts_search(state)

    def _ismcts(self) -> pyspiel.Bot:
        """This player's information-set MCTS bot, every random draw of it from the job's seed."""
        bot = getattr(self, "_cached_ismcts", None)
        if bot is None:
            bot = self._cached_ismcts = ismcts_bot(self.game.engine, self.options, self.sims, self.rng)
        return bot

    def _ismcts_cpp(self) -> pyspiel.ISMCTSBot:
        bot = getattr(self, "_cached_ismcts_cpp", None)
        if bot is None:
            o = self.options
            seed = self.rng.randrange(2**31)
            self._evaluator = pyspiel.RandomRolloutEvaluator(o.rollouts, seed)
            bot = pyspiel.ISMCTSBot(seed + 1, self._evaluator, o.uct_c, self.sims)
            self._cached_ismcts_cpp = bot
        return bot

    def _determinized(self, turn: Turn) -> Decision:
        """The move most visited over searches of worlds the mover cannot tell from the real one."""
        o = self.options
        if getattr(self, "_cached_bot", None) is None:
            seed = self.rng.randrange(2**31)
            self._evaluator = pyspiel.RandomRolloutEvaluator(o.rollouts, seed)
            share = max(1, self.sims // o.worlds)
            self._cached_bot = pyspiel.MCTSBot(
                self.game.engine, self._evaluator, o.uct_c, share, 1000, o.solve, seed + 1, False
            )
        legal = turn.state.legal_actions()
        visits = dict.fromkeys(legal, 0)
        try:
            for _ in range(o.worlds):
                world = sample_world(turn.state, turn.seat, self.rng)
                for child in self._cached_bot.mcts_search(world).children:
                    if child.action in visits:
                        visits[child.action] += child.explore_count
        except TooManyWorlds:
            return Decision(self.rng.choice(legal), note={"fallback": "random", "why": "too many worlds"})
        return Decision(max(legal, key=lambda a: visits[a]))

    async def act(self, turn: Turn) -> Decision:
        if self.game.perfect_information:
            return Decision(self._bot().step(turn.state))
        if self.options.search == "ismcts" and self._resamples:
            return Decision(int(self._ismcts().step(turn.state)))
        if self.options.search == "ismcts_cpp" and self._resamples:
            return Decision(self._ismcts_cpp().step(turn.state))
        return self._determinized(turn)

    @property
    def _resamples(self) -> bool:
        return _resamples(self.game.spec)
