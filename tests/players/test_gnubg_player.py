"""The gnubg player: gnubg's best play at its named levels (as gnubg 1.07 defines them), the weak ones
losing equity by the grader's measure, reproducibly; one clear line for a level it lacks."""

from __future__ import annotations

import random
from pathlib import Path

import pyspiel
import pytest

from plylab.analysis.backgammon import backgammon_rows
from plylab.games import get_game
from plylab.harness.store import Store
from plylab.oracles.gnubg import LEVEL_KEYS, GnubgOracle, GnubgProcess, board_of, gnubg_path
from plylab.players.gnubg import LEVELS
from tests.support.gnubg import as_winloss, decisions, dice_of, hint_plies, opening

GNUBG = gnubg_path()
pytestmark = pytest.mark.skipif(GNUBG is None, reason="gnubg is not installed (make engines)")


def positions(count: int, seed: int = 11) -> list[pyspiel.State]:
    """Fixed positions: decisions of a seeded random game with more than one legal action."""
    rng, out = random.Random(seed), []
    state = get_game("backgammon:scoring_type=full_scoring").engine.new_initial_state()
    while not state.is_terminal() and len(out) < count:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        if len(state.legal_actions()) > 1:
            out.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    return out


def plays(level: str, states: list[pyspiel.State]) -> list[int]:
    assert GNUBG is not None
    player = GnubgOracle(GnubgProcess(GNUBG, timeout=60), LEVELS[level])
    try:
        return [player.best_action(s) for s in states]
    finally:
        player.close()


def test_gnubgs_named_levels_as_gnubg_defines_them() -> None:
    """eval.c's aecSettings: 0-ply with noise 0.06 / 0.05 / 0.04 / 0.015, expert noiseless, world class
    2-ply with pruning and the 'normal' move filter."""
    assert {k: (v.plies, v.noise) for k, v in LEVELS.items()} == {
        "beginner": (0, 0.06),
        "casual": (0, 0.05),
        "intermediate": (0, 0.04),
        "advanced": (0, 0.015),
        "expert": (0, 0.0),
        "world_class": (2, 0.0),
    }
    assert LEVELS["world_class"].filter == "normal" and LEVELS["world_class"].prune


@pytest.mark.slow
def test_weaker_levels_lose_more_equity_per_decision_than_expert_reproducibly() -> None:
    """Graded at 0 plies (expert's own level, so expert loses nothing), beginner and casual lose
    equity on the same fixed positions; gnubg's deterministic noise gives the same plays again."""
    assert GNUBG is not None
    states = positions(30)
    grader = GnubgOracle(GnubgProcess(GNUBG, timeout=60), LEVEL_KEYS[0])
    try:
        loss = {}
        for level in ("expert", "casual", "beginner"):
            chosen = plays(level, states)
            loss[level] = sum(grader.grade(s, a).loss(a) for s, a in zip(states, chosen, strict=True)) / len(
                states
            )
            if level == "beginner":
                assert plays(level, states) == chosen  # a fresh gnubg, the same plays
    finally:
        grader.close()
    assert loss["expert"] == pytest.approx(0.0, abs=1e-9)
    assert loss["beginner"] > 0.01 and loss["casual"] > 0.01


@pytest.mark.slow
def test_expert_plays_what_the_grader_values_best_at_0_plies(cli, tmp_path: Path) -> None:
    """At `expert` gnubg plays at the level `--score plies=0` grades at: no equity lost on any decision
    where the game counts what gnubg plays for (its money equity: `full_scoring`; under the default
    `winloss_scoring` gnubg's play may give up win probability for gammons, as gnubg's own does)."""
    store = str(tmp_path / "s.sqlite")
    r = cli("run", "--game", "backgammon:scoring_type=full_scoring", "--player", "gnubg", "--opponent", "random", "--games", "1",
            "--score", "plies=0", "--store", store, "--quiet")  # fmt: skip
    assert r.code == 0, r.err
    s = Store(store, create=False)
    try:
        (row,) = backgammon_rows(s)
    finally:
        s.close()
    assert row.player == "gnubg" and row.unforced > 10
    assert row.error == pytest.approx(0.0, abs=1e-9) and row.pr == pytest.approx(0.0, abs=1e-6)


def test_an_unknown_level_is_one_line(cli) -> None:
    r = cli("run", "--game", "backgammon", "--player", "gnubg:level=grandmaster", "--opponent", "random",
            "--games", "1")  # fmt: skip
    assert r.code == 2 and "level" in r.err and "beginner" in r.err and "Traceback" not in r.err


@pytest.mark.slow
def test_world_class_plays_gnubgs_own_2ply_choice() -> None:
    """world_class's play on fixed positions is gnubg's best by its own 2-ply hint under the 'normal'
    move filter (8 within 0.16), the setting gnubg's world class uses."""
    assert GNUBG is not None
    player = GnubgOracle(GnubgProcess(GNUBG, timeout=60), LEVELS["world_class"])
    try:
        for state in [opening((6, 1)), *decisions(2, seed=5)]:
            chosen = player.best_action(state)
            _, ranked = player.ranked(state)
            theirs = hint_plies(
                board_of(state, state.current_player()), dice_of(state), 2, ("2 0 0 8 0.16", "2 1 -1 0 0")
            )
            assert theirs[0][0] == 2
            assert ranked.best == pytest.approx(theirs[0][1], abs=6e-4)
            assert player.play_values(state)[chosen] == pytest.approx(ranked.best, abs=1e-9)
    finally:
        player.close()


@pytest.mark.slow
def test_expert_plays_gnubgs_top_hint_play_under_winloss_scoring() -> None:
    """In OpenSpiel's default backgammon (a win counts 1 however won), the expert level plays what gnubg
    plays: its top 0-ply hint play by its own cubeless money equity, not the play of best win
    probability (which differs on some of these fixed positions)."""
    assert GNUBG is not None
    player = GnubgOracle(GnubgProcess(GNUBG, timeout=60), LEVELS["expert"])
    differs = 0
    try:
        for full in decisions(7):
            state = as_winloss(full)
            chosen = player.best_action(state)
            leaves, ranked = player.ranked(state)
            [end] = leaves[chosen] if len(leaves[chosen]) == 1 else [ranked.best_end]
            theirs = hint_plies(board_of(state, state.current_player()), dice_of(state))
            assert ranked.money[end] == pytest.approx(theirs[0][1], abs=6e-4), str(state)
            differs += max(ranked.value, key=lambda e: ranked.value[e]) != end
    finally:
        player.close()
    assert differs >= 1
