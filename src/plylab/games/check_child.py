"""The child process of `games.check`: load one OpenSpiel game and play it a little, nothing else.

Run as a script (`python check_child.py NAME PARAMS_JSON`), importing only pyspiel and the standard
library, so that whatever OpenSpiel's C++ does with a bad parameter (a segmentation fault, an abort,
an endless loop, an exception) ends this process, never the one that asked. It plays the line of first
moves the parent's own checks play (`games.base._stuck_ply`), then a few seeded random games, reading
at every decision what a player's view and a replay read (the state, each seat's information state and
observation, the chosen move's name). Its last line on stdout says how it went:
`plylab-check {"ok": true}` or `plylab-check {"error": "...", "kind": "SpielError"}`.

A position that is not over and has no legal move ends a game quietly: the parent says that in words.
"""

from __future__ import annotations

import ctypes
import json
import random
import resource
import sys
from typing import Any

import pyspiel

MARK = "plylab-check "
RANDOM_GAMES = 3
PLIES = 200  # as `games.base.PROBE_PLIES`: the parent's first-moves line, played here first


def no_core_dump() -> None:
    """A crash here leaves no core file behind (RLIMIT_CORE for files; not dumpable for a pipe)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except (OSError, AttributeError):
        pass


def play(game: Any, choose: Any) -> None:
    """One game of up to PLIES moves, each chosen by `choose(list)` among the legal ones."""
    kind = game.get_type()
    seats = range(game.num_players())
    state = game.new_initial_state()
    for _ in range(PLIES):
        str(state)
        if state.is_terminal():
            state.returns()
            return
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            if not outcomes:
                return
            action = choose(outcomes)[0]
        else:
            mover = state.current_player()
            if mover < 0:  # no seat to move and no chance: nothing a plylab session plays
                return
            if mover >= game.num_players():  # its every next read is out of bounds
                raise ValueError(f"seat {mover} is to move in a game of {game.num_players()} players")
            for seat in seats:
                if kind.provides_information_state_string:
                    state.information_state_string(seat)
                if kind.provides_observation_string:
                    state.observation_string(seat)
            legal = state.legal_actions()
            if not legal:
                return
            action = choose(legal)
            state.action_to_string(mover, action)
        state.apply_action(action)
    str(state)


def check(name: str, params: dict[str, Any]) -> None:
    """Load the game and play the first-moves line and RANDOM_GAMES seeded random games."""
    game = pyspiel.load_game(name, params)
    play(game, lambda options: options[0])
    rng = random.Random(0)
    for _ in range(RANDOM_GAMES):
        play(game, rng.choice)


def main(argv: list[str]) -> int:
    no_core_dump()
    name, params = argv[0], json.loads(argv[1])
    try:
        check(name, params)
    except Exception as exc:  # OpenSpiel's refusal (SpielError) or any error it causes
        print(MARK + json.dumps({"error": str(exc), "kind": type(exc).__name__}), flush=True)
        return 0
    print(MARK + json.dumps({"ok": True}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
