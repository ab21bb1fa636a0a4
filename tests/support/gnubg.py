"""gnubg's own answers for the backgammon tests (its CLI, a second path into gnubg beside the
embedded-Python server the grader uses), and fixed positions to ask it about."""

from __future__ import annotations

import random
import re
import subprocess

import pyspiel

from plylab.games import get_game
from plylab.oracles.gnubg import Board, gnubg_path

GNUBG = gnubg_path()
FULL = "backgammon:scoring_type=full_scoring"  # gnubg's cubeless money equity counts gammons and backgammons


def gnubg_cli(commands: list[str]) -> str:
    assert GNUBG is not None
    return subprocess.run(
        [GNUBG, "-t", "-q"], input="\n".join(commands) + "\n", capture_output=True, text=True, timeout=120
    ).stdout


def hint_plies(
    board: Board, dice: tuple[int, int], plies: int = 0, filters: tuple[str, ...] = ()
) -> list[tuple[int, float]]:
    """gnubg's own cubeless hint (its CLI: `set board simple`, `hint`) at `plies` with the move filter
    `filters` (`set evaluation movefilter ...` arguments): every play's (ply, equity), best first."""
    return [(n, eq) for n, eq, _ in hint_wins(board, dice, plies, filters)]


def hint_wins(
    board: Board, dice: tuple[int, int], plies: int = 0, filters: tuple[str, ...] = ()
) -> list[tuple[int, float, float]]:
    """gnubg's own cubeless hint as `hint_plies`, with each play's win probability: (ply, equity, win),
    in gnubg's order (best by its cubeless money equity first)."""
    opp, me = board
    simple = [me[24]] + [me[k] - opp[23 - k] for k in range(24)] + [opp[24]]
    commands = [
        "set player 0 human",
        "set player 1 human",
        "set jacoby off",
        "set evaluation chequerplay evaluation cubeful off",
        f"set evaluation chequerplay evaluation plies {plies}",
        "set evaluation chequerplay evaluation prune on",
        "set evaluation chequerplay evaluation noise 0",
        *[f"set evaluation movefilter {f}" for f in filters],
        "new session",
        "set turn 1",
        "set board simple " + " ".join(map(str, simple)),
        f"set dice {dice[0]} {dice[1]}",
        "hint 1000",
    ]
    found = re.findall(r"Cubeless (\d)-ply .*Eq\.: ([+-]\d\.\d+).*\n\s+(\d\.\d+) ", gnubg_cli(commands))
    return [(int(n), float(eq), float(win)) for n, eq, win in found]


def hint(board: Board, dice: tuple[int, int]) -> list[float]:
    """gnubg's own 0-ply cubeless hint: every play's equity."""
    return [eq for _, eq in hint_plies(board, dice)]


# gnubg's analysis move filter at 2 plies, as `show analysis` prints it (checked below)
LARGE_2PLY = ("2 0 0 16 0.32", "2 1 -1 0 0")


def dice_of(state: pyspiel.State) -> tuple[int, int]:
    found = re.search(r"Dice: (\d)(\d)", str(state))
    assert found is not None
    return int(found.group(1)), int(found.group(2))


def opening(dice: tuple[int, int]) -> pyspiel.State:
    state = get_game(FULL).engine.new_initial_state()
    for outcome, _ in state.chance_outcomes():
        child = state.child(outcome)
        if dice_of(child) in (dice, dice[::-1]):
            return child
    raise AssertionError(f"no opening roll {dice}")


def as_winloss(state: pyspiel.State) -> pyspiel.State:
    """The same position in OpenSpiel's default backgammon (`winloss_scoring`: a win counts 1 however won)."""
    out = get_game("backgammon").engine.new_initial_state()
    for action in state.history():
        out.apply_action(action)
    return out


def decisions(count: int, seed: int = 3) -> list[pyspiel.State]:
    """Fixed positions: the first decisions of a seeded random game whose roll is not a double."""
    rng, out = random.Random(seed), list[pyspiel.State]()
    state = get_game(FULL).engine.new_initial_state()
    while not state.is_terminal() and len(out) < count:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        dice = dice_of(state)
        if dice[0] != dice[1] and len(state.legal_actions()) > 1:
            out.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    return out
