"""Backgammon graded by GNU Backgammon: OpenSpiel's plays against gnubg's own hint (the CLI, a second
path into gnubg), on fixed positions and over random games; plays matched by the position they lead to.
The default level against gnubg's own analysis settings (`show analysis`) and its 2-ply hint with them;
the many-position checks at the opt-in 0-ply level, which costs a twenty-fifth as much."""

from __future__ import annotations

import os
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pyspiel
import pytest

from plylab.analysis.backgammon import BAD, DOUBTFUL, VERY_BAD
from plylab.errors import ProviderFailure
from plylab.games import get_game
from plylab.oracles.gnubg import (
    ANALYSIS,
    FILTERS,
    KEY_THRESHOLD,
    LEVEL_KEYS,
    Board,
    GnubgOracle,
    GnubgPool,
    GnubgProcess,
    board_of,
    gnubg_path,
)
from tests.support.gnubg import (
    FULL,
    LARGE_2PLY,
    as_winloss,
    decisions,
    dice_of,
    gnubg_cli,
    hint,
    hint_plies,
    hint_wins,
    opening,
)

GNUBG = gnubg_path()
pytestmark = pytest.mark.skipif(GNUBG is None, reason="gnubg is not installed (make engines)")


@pytest.fixture(scope="module")
def oracle() -> Iterator[GnubgOracle]:
    assert GNUBG is not None
    made = GnubgOracle(GnubgProcess(GNUBG, timeout=30), LEVEL_KEYS[0])
    yield made
    made.close()


@pytest.fixture(scope="module")
def analysis() -> Iterator[GnubgOracle]:
    assert GNUBG is not None
    made = GnubgOracle(GnubgProcess(GNUBG, timeout=120))  # the default level
    yield made
    made.close()


def turn_values(oracle: GnubgOracle, state: pyspiel.State) -> list[float]:
    """The mover's equity of every distinct position a whole turn can reach (a double's both halves)."""
    values = oracle.play_values(state)
    return sorted(values.values(), reverse=True)


@pytest.mark.slow
def test_opening_61_is_13_7_8_7_at_gnubgs_equity(oracle: GnubgOracle) -> None:
    state = opening((6, 1))
    values = oracle.play_values(state)
    best = max(values, key=lambda a: values[a])
    assert state.action_to_string(best).split(" - ")[1] in ("13/7 8/7", "8/7 13/7")
    assert values[best] == pytest.approx(0.091, abs=6e-4)  # gnubg 1.07's 0-ply hint: Eq.: +0.091
    assert len(set(round(v, 6) for v in values.values())) == len(hint(board_of(state, 0), (6, 1)))


@pytest.mark.parametrize("dice", [(6, 1), (3, 1), (5, 2), (4, 2)])
def test_opening_rolls_agree_with_gnubgs_hint(oracle: GnubgOracle, dice: tuple[int, int]) -> None:
    state = opening(dice)
    ours = oracle.play_values(state)
    theirs = hint(board_of(state, state.current_player()), dice)
    assert max(ours.values()) == pytest.approx(theirs[0], abs=6e-4)


def test_a_double_is_graded_as_the_whole_turn(oracle: GnubgOracle) -> None:
    """A double is two OpenSpiel decisions; the first half's best is gnubg's best whole play of 6-6."""
    state = opening((3, 1))
    values = oracle.play_values(state)
    state.apply_action(max(values, key=lambda a: values[a]))  # 8/5 6/5
    state = next(c for c in (state.child(o) for o, _ in state.chance_outcomes()) if dice_of(c) == (6, 6))
    ours = oracle.play_values(state)
    theirs = hint(board_of(state, state.current_player()), (6, 6))
    assert max(ours.values()) == pytest.approx(theirs[0], abs=6e-4)
    second = state.child(max(ours, key=lambda a: ours[a]))
    assert second.current_player() == state.current_player()  # the same turn's second half
    assert max(oracle.play_values(second).values()) == pytest.approx(theirs[0], abs=6e-4)


@pytest.mark.slow
def test_plays_map_onto_gnubgs_over_random_games(oracle: GnubgOracle) -> None:
    """Every decision of random games whose roll is not a double: the distinct positions OpenSpiel's
    plays lead to are gnubg's plays, one for one, at the same equities (gnubg prints three decimals)."""
    rng = random.Random(42)
    checked = 0
    for _ in range(2):
        state = get_game(FULL).engine.new_initial_state()
        while not state.is_terminal() and checked < 40:
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            dice = dice_of(state)
            if dice[0] != dice[1] and len(state.legal_actions()) > 1:
                values = oracle.play_values(state)
                by_position: dict[Board, float] = {}
                for action, value in values.items():
                    by_position[board_of(state.child(action), 1 - state.current_player())] = value
                theirs = hint(board_of(state, state.current_player()), dice)
                assert len(by_position) == len(theirs), str(state)
                ours = sorted(by_position.values(), reverse=True)
                assert ours == pytest.approx(theirs, abs=6e-4), str(state)
                checked += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked >= 20


@pytest.mark.slow
def test_backgammon_declares_gnubg_and_a_forced_play_is_not_informative() -> None:
    game = get_game("backgammon")
    assert game.ground_truth is not None and game.ground_truth.kind == "engine"
    default = game.ground_truth.grader(game)
    assert default is not None and default.judge  # gnubg's analysis level unless --score says otherwise
    grader = game.ground_truth.grader(game, "plies=0")
    assert grader is not None
    rng = random.Random(7)
    state, seen_forced, seen_open = game.engine.new_initial_state(), False, False
    while not state.is_terminal() and not (seen_forced and seen_open):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        legal = state.legal_actions()
        grade = grader.judge(state, legal[0]).grade
        assert grade is not None and grade.unit == "payoff" and grade.span == 2.0
        assert grade.source == "gnubg 1.07 plies=0 cubeless"
        assert (grade.detail["plays"] > 1) == grade.informative  # gnubg's unforced: more than one play
        if len(legal) == 1:
            assert not grade.informative
            seen_forced = True
        else:
            seen_open = seen_open or grade.informative
        state.apply_action(rng.choice(legal))
    assert seen_forced and seen_open
    assert get_game("backgammon:hyper_backgammon=true").ground_truth is None
    # an engine, but not chess: lichess's figures (inspect's scorer, its export) are not made of gnubg's grades
    chess = get_game("chess").ground_truth
    assert not game.ground_truth.chess and chess is not None and chess.chess


def test_games_lists_backgammon_as_graded_by_gnubg(cli) -> None:
    r = cli("games")
    assert r.code == 0, r.err
    (line,) = [x for x in r.out.splitlines() if x.startswith("backgammon ")]
    assert " engine " in line and "(graded by gnubg)" in line


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
def test_grades_are_the_same_whatever_the_pool_size() -> None:
    """gnubg's evaluation is deterministic: fixed decisions graded by one process, and at once by a
    pool of two on its threads (as the session grades), get identical grades; no process outlives it."""
    assert GNUBG is not None
    states = decisions(4, seed=5)
    one = GnubgOracle(GnubgPool(GNUBG, size=1, timeout=60), LEVEL_KEYS[0])
    try:
        alone = [one.grade(s, s.legal_actions()[-1]) for s in states]
    finally:
        one.close()
    pool = GnubgPool(GNUBG, size=2, timeout=60)
    two = GnubgOracle(pool, LEVEL_KEYS[0])
    assert two.executor is pool.executor
    try:
        futures = [two.executor.submit(two.grade, s.clone(), s.legal_actions()[-1]) for s in states]
        together = [f.result() for f in futures]
        assert pool.started == 2
        pids = pool.pids()
        assert len(pids) == 2
    finally:
        two.close()
    assert [(g.expected, g.detail) for g in together] == [(g.expected, g.detail) for g in alone]
    assert pool.pids() == [] and not any(alive(p) for p in pids)


def test_backgammon_grades_on_the_pools_threads() -> None:
    """The declared ground truth hands the session its pool's threads (moves graded while the game goes on)."""
    game = get_game("backgammon")
    assert game.ground_truth is not None
    grader = game.ground_truth.grader(game, "plies=0")
    assert grader is not None and getattr(grader, "executor", None) is not None


@pytest.mark.slow
def test_a_stuck_gnubg_in_a_pool_fails_within_its_deadline(tmp_path: Path) -> None:
    """Two grades at once, each on its own stuck gnubg: each fails in one line within its deadlines
    (killed and restarted, then given up), and no process is left."""
    import time

    stuck = tmp_path / "gnubg"
    stuck.write_text("#!/bin/sh\nexec sleep 60\n")
    stuck.chmod(0o755)
    pool = GnubgPool(str(stuck), size=2, timeout=0.5)
    graded = GnubgOracle(pool)
    state = opening((6, 1))
    t = time.monotonic()
    futures = [graded.executor.submit(graded.grade, state.clone(), a) for a in state.legal_actions()[:2]]
    for future in futures:
        with pytest.raises(ProviderFailure, match="within 0.5 s.*left unfinished") as info:
            future.result(timeout=10)
        assert "\n" not in str(info.value)
    assert time.monotonic() - t < 5
    assert pool.started == 2 and pool.pids() == []
    graded.close()


@pytest.mark.slow
def test_a_stuck_gnubg_fails_within_its_deadline(tmp_path: Path) -> None:
    """A gnubg that never answers is killed at the deadline and restarted, then given up in one line:
    the game is left unfinished (the rule of every engine), and later calls fail at once."""
    import time

    stuck = tmp_path / "gnubg"
    stuck.write_text("#!/bin/sh\nexec sleep 60\n")
    stuck.chmod(0o755)
    process = GnubgProcess(str(stuck), timeout=0.5)
    board = board_of(opening((6, 1)), 0)
    t = time.monotonic()
    with pytest.raises(ProviderFailure, match=r"failed 3 times \(the start: no answer within 0.5 s") as info:
        process.evaluate([board])
    assert "\n" not in str(info.value) and str(info.value).endswith("re-run the same command to resume")
    assert time.monotonic() - t < 5
    assert process.pid() is None  # killed, not left running
    graded = GnubgOracle(process)  # as the session meets it: the game left unfinished, for a rerun
    with pytest.raises(ProviderFailure, match="left unfinished"):
        graded.grade(opening((6, 1)), opening((6, 1)).legal_actions()[0])
    graded.close()


def test_the_default_level_is_gnubgs_own_analysis_level() -> None:
    """What backgammon players' error rates come from: gnubg 1.07's analysis settings as it prints
    them (`show analysis`), the grader's default level, filter and thresholds the same."""
    out = gnubg_cli(["show analysis"])
    chequer = out[out.index("Chequer play:") : out.index("Cube decisions:")]
    assert ANALYSIS.plies == 2 and "2-ply evaluation." in chequer
    assert ANALYSIS.prune and "Using pruning neural nets." in chequer
    two = chequer[chequer.index("Move filter for 2 ply:") : chequer.index("Move filter for 3 ply:")]
    first, skip = FILTERS[ANALYSIS.filter][2]
    assert (
        f"keep the first {first.accept} 0-ply moves and up to {first.extra} more moves within equity "
        f"{first.threshold:.2f}" in two
    )
    assert skip.accept == -1 and "Skip pruning for 1-ply moves." in two
    thresholds = dict((name, float(v)) for v, name in re.findall(r"-(\d\.\d+) (doubtful|bad|very bad)", out))
    assert (
        thresholds
        == {"doubtful": DOUBTFUL, "bad": BAD, "very bad": VERY_BAD}
        == {"doubtful": KEY_THRESHOLD, "bad": 0.06, "very bad": 0.12}
    )


@pytest.mark.slow
def test_the_default_level_agrees_with_gnubgs_2ply_hint(analysis: GnubgOracle) -> None:
    """On fixed positions, the plays the grader takes to 2 plies are gnubg's own (its hint with the
    analysis filter): the same number, the same equities to gnubg's three decimals, the same best."""
    for state in [opening((6, 1)), *decisions(3)]:
        _, ranked = analysis.ranked(state)
        ours = sorted((ranked.value[e] for e in ranked.top), reverse=True)
        theirs = hint_plies(board_of(state, state.current_player()), dice_of(state), 2, LARGE_2PLY)
        deep = [eq for n, eq in theirs if n == 2]
        assert len(ours) == len(deep) > 1, str(state)
        assert ours == pytest.approx(deep, abs=6e-4), str(state)
        assert theirs[0][0] == 2 and max(analysis.play_values(state).values()) == pytest.approx(
            theirs[0][1], abs=6e-4
        )


@pytest.mark.slow
def test_under_winloss_scoring_gnubg_s_own_plays_go_to_2_plies(analysis: GnubgOracle) -> None:
    """OpenSpiel's default backgammon counts a win as 1 however won, yet gnubg's analysis ranks and
    filters plays by its cubeless money equity (gammons counted): on fixed positions where ranking by
    win probability would take other plays deeper, the plays taken to 2 plies are gnubg's own 2-ply
    hint plays (same number, same money equities), each valued 2p - 1 with gnubg's 2-ply p."""
    checked = 0
    for full in decisions(4):
        state = as_winloss(full)
        _, ranked = analysis.ranked(state)
        theirs = hint_wins(board_of(state, state.current_player()), dice_of(state), 2, LARGE_2PLY)
        deep = [(eq, win) for n, eq, win in theirs if n == 2]
        assert len(ranked.top) == len(deep) > 1, str(state)
        ours = sorted(ranked.top, key=lambda e: -ranked.money[e])
        assert [ranked.money[e] for e in ours] == pytest.approx([eq for eq, _ in deep], abs=6e-4), str(state)
        assert [ranked.value[e] for e in ours] == pytest.approx([2 * w - 1 for _, w in deep], abs=1.1e-3)
        by_win = sorted(ranked.value, key=lambda e: -ranked.value[e])  # what ranking by 2p - 1 would keep
        checked += set(by_win[: len(deep)]) != ranked.top
    assert checked >= 2  # positions where a win-probability filter takes other plays deeper


@pytest.mark.slow
def test_a_play_the_filter_left_out_is_graded_at_2_plies(analysis: GnubgOracle) -> None:
    """gnubg's analysis evaluates the play made at the deepest ply even where its filter left it out:
    the grade of the opening 6-1's worst play is its 2-ply equity (gnubg's hint over every play at 2
    plies), not its 0-ply one, and it ranks below gnubg's best."""
    state = opening((6, 1))
    zero = GnubgOracle(analysis.process, LEVEL_KEYS[0]).play_values(state)
    worst = min(zero, key=lambda a: zero[a])
    leaves, ranked = analysis.ranked(state)
    assert not set(leaves[worst]) & ranked.top  # the filter left it at 0 plies
    grade = analysis.grade(state, worst)
    every = hint_plies(board_of(state, 0), (6, 1), 2, ("2 0 0 100 10", "2 1 -1 0 0"))
    assert (
        grade.expected[worst] == pytest.approx(every[-1][1], abs=6e-4) != pytest.approx(zero[worst], abs=6e-4)
    )
    assert grade.best == pytest.approx(every[0][1], abs=6e-4) and grade.loss(worst) > VERY_BAD
    assert (
        grade.source == "gnubg 1.07 plies=2 filter=large cubeless"
        and grade.detail["deep"] == len(ranked.top) + 1
    )


def test_score_sets_gnubgs_level_and_refuses_others(cli, tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    ok = cli("run", "--game", "backgammon", "--player", "random", "--opponent", "random", "--games", "1",
             "--score", "plies=0", "--store", store, "--dry-run")  # fmt: skip
    assert ok.code == 0, ok.err
    bad = cli("run", "--game", "backgammon", "--player", "random", "--opponent", "random", "--games", "1",
              "--score", "plies=5", "--store", store)  # fmt: skip
    assert (
        bad.code == 2
        and "not a gnubg level" in bad.err
        and "plies=0" in bad.err
        and "Traceback" not in bad.err
    )


@pytest.mark.slow
def test_where_one_play_survives_the_filter_gnubg_goes_deeper_only_for_an_error(
    analysis: GnubgOracle,
) -> None:
    """A fixed position (1-6) where no other play is within 0.32 of the best at 0 plies: gnubg's analysis
    looks no deeper when the best is played (its 0-ply equity stands), and takes both the best and a
    play more than 0.03 worse to 2 plies (their equities in gnubg's 2-ply hint over every play)."""
    state = decisions(14, seed=8)[13]
    assert dice_of(state) == (1, 6)
    zero = GnubgOracle(analysis.process, LEVEL_KEYS[0]).play_values(state)
    best = max(zero, key=lambda a: zero[a])
    _, ranked = analysis.ranked(state)
    assert len(ranked.top) == 1
    assert analysis.grade(state, best).best == pytest.approx(zero[best], abs=1e-9)
    worse = min(zero, key=lambda a: abs(zero[a] - (zero[best] - 0.4)))
    assert zero[worse] < zero[best] - 0.32
    grade = analysis.grade(state, worse)
    every = [
        eq
        for n, eq in hint_plies(
            board_of(state, state.current_player()),
            (1, 6),
            2,
            ("2 0 0 100 10", "2 1 -1 0 0"),
        )
        if n == 2
    ]
    assert grade.best == pytest.approx(every[0], abs=6e-4) != pytest.approx(zero[best], abs=6e-4)
    assert any(grade.expected[worse] == pytest.approx(eq, abs=6e-4) for eq in every)
    assert grade.expected[worse] != pytest.approx(zero[worse], abs=1e-6)


@pytest.mark.slow
def test_the_opt_in_1ply_level_agrees_with_gnubgs_1ply_hint() -> None:
    """`--score plies=1`: the same filter at 1 ply, gnubg's own 1-ply hint under it."""
    assert GNUBG is not None
    one = GnubgOracle(GnubgProcess(GNUBG, timeout=60), LEVEL_KEYS[1])
    try:
        for state in [opening((5, 2)), *decisions(2, seed=4)]:
            _, ranked = one.ranked(state)
            ours = sorted((ranked.value[e] for e in ranked.top), reverse=True)
            theirs = hint_plies(
                board_of(state, state.current_player()), dice_of(state), 1, ("1 0 0 16 0.32",)
            )
            assert ours == pytest.approx([eq for n, eq in theirs if n == 1], abs=6e-4), str(state)
    finally:
        one.close()
