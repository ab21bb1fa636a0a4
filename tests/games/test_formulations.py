"""Proof that every formulation is a bijection over the engine and leaves the game tree alone.

Tic-tac-toe and Nim: every reachable position under every formulation. Connect Four: `relabel`
on random play (hypothesis). Each formulation must (1) name the legal actions one-to-one with
distinct labels, (2) parse each label back to its action, (3) refuse a label of a non-legal action
as illegal, (4) render distinct positions as distinct text, (5) describe the engine's outcome.
"""

from __future__ import annotations

import itertools
import random
from functools import cache

import pyspiel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plylab.analysis.recognition import names_game
from plylab.errors import ParseError, UserError
from plylab.games import GAMES, Formulation, get_game
from plylab.games.tic_tac_toe import LINES, MAGIC, NumberClaim
from plylab.oracles.minimax import position_key
from tests.support.games import past_chance

# Generated instances (issue 14) are walked exhaustively like the papers' games: Nim under other
# pile sets and normal play, and the magic square under each of its 8 symmetries and other shifts.
EXHAUSTIVE = ("tic_tac_toe", "nim", "nim:pile_sizes=2;4;6", "nim:pile_sizes=3;3,is_misere=false")
RELABEL_SEEDS = (0, 7)
MAGIC_INSTANCES = [
    f"magic_square:symmetry={s},shift={k}" for s, k in zip(range(8), (0, 5, -4, 11, 2, 100, -9, 1))
]


# OpenSpiel 2.0's structs (003 l.439): field names remapped, moves coded, and both at once.
STRUCT_OBFUSCATIONS = ["struct:fields=3", "struct:actions=5", "struct:fields=2,actions=9"]


def specs(game_name: str) -> list[str]:
    names = get_game(game_name).formulations.names()
    generated = MAGIC_INSTANCES if game_name == "tic_tac_toe" else []
    generated = generated + (STRUCT_OBFUSCATIONS if "struct" in names else [])
    return [n for n in names if n != "relabel"] + generated + [f"relabel:seed={s}" for s in RELABEL_SEEDS]


@cache
def reachable(game_name: str) -> tuple[pyspiel.State, ...]:
    """One state per distinct position (position key), by depth-first search from the start."""
    seen: dict[str, pyspiel.State] = {}
    stack = [get_game(game_name).new_state()]
    while stack:
        state = stack.pop()
        key = position_key(state)
        if key in seen:
            continue
        seen[key] = state
        if not state.is_terminal():
            stack.extend(state.child(a) for a in state.legal_actions())
    return tuple(seen.values())


class Checker:
    """Checks states one by one, remembering renders to catch two positions that look alike."""

    def __init__(self, f: Formulation) -> None:
        self.f = f
        self.renders: dict[str, str] = {}
        self.distinct: set[tuple[str, ...]] = set()
        self.n_actions = f.game.engine.num_distinct_actions()

    def check(self, state: pyspiel.State) -> None:
        f, key = self.f, position_key(state)
        text = f.render_state(state)
        assert self.renders.setdefault(text, key) == key, f"two positions render as:\n{text}"
        if state.is_terminal():
            self.check_outcome(state)
            return
        labels = tuple(f.action_label(state, a) for a in range(self.n_actions))
        if labels not in self.distinct:  # labels rarely change between positions: check each set once
            assert len({f.normalize(x) for x in labels}) == self.n_actions, "action labels collide"
            self.distinct.add(labels)
        legal = state.legal_actions()
        assert sorted(f.legal_labels(state).values()) == legal
        for action in legal:
            assert f.parse_action(state, labels[action]) == action
        for action in set(range(self.n_actions)) - set(legal):
            try:
                f.parse_action(state, labels[action])
            except ParseError as err:
                assert getattr(err, "kind", None) == "illegal", labels[action]
            else:
                raise AssertionError(f"non-legal '{labels[action]}' parsed")

    def check_outcome(self, state: pyspiel.State) -> None:
        text, returns = self.f.describe_outcome(state), state.returns()
        if returns[0] == returns[1]:
            assert "draw" in text.lower()
            return
        winner = 0 if returns[0] > returns[1] else 1
        assert f"{self.f.seat_name(winner)} wins" in text
        assert f"{self.f.seat_name(1 - winner)} wins" not in text


def test_state_counts() -> None:
    assert len(reachable("tic_tac_toe")) == 5478
    assert len(reachable("nim")) == 752  # (pile sizes, mover) pairs reachable from 1, 3, 5, 7


# The other six symmetries and the second relabelling seed walk the same code again, and the two
# costliest structured specs (seconds each) are covered by their cheaper siblings: `make test` only.
SLOW_SPECS = {
    *MAGIC_INSTANCES[2:],
    f"relabel:seed={RELABEL_SEEDS[1]}",
    "struct",
    "struct:fields=3",
    "struct:actions=5",
}


@pytest.mark.parametrize(
    ("game_name", "spec"),
    [
        pytest.param(g, s, marks=pytest.mark.slow if s in SLOW_SPECS else ())
        for g in EXHAUSTIVE
        for s in specs(g)
    ],
    ids=lambda v: str(v),
)
def test_every_reachable_position(game_name: str, spec: str) -> None:
    checker = Checker(get_game(game_name).formulation(spec))
    for state in reachable(game_name):
        checker.check(state)


C4_RELABEL: dict[int, Checker] = {}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.sampled_from(RELABEL_SEEDS), picks=st.lists(st.integers(0, 6), max_size=42))
def test_connect_four_relabel_on_random_play(seed: int, picks: list[int]) -> None:
    game = get_game("connect_four")
    checker = C4_RELABEL.setdefault(seed, Checker(game.formulation(f"relabel:seed={seed}")))
    state = game.new_state()
    checker.check(state)
    for pick in picks:
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[pick % len(legal)])
        checker.check(state)


C4_STRUCT: dict[str, Checker] = {}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=st.sampled_from(["struct", *STRUCT_OBFUSCATIONS]), picks=st.lists(st.integers(0, 6), max_size=42))
def test_connect_four_struct_on_random_play(spec: str, picks: list[int]) -> None:
    game = get_game("connect_four")
    checker = C4_STRUCT.setdefault(spec, Checker(game.formulation(spec)))
    state = game.new_state()
    checker.check(state)
    for pick in picks:
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[pick % len(legal)])
        checker.check(state)


NUMBER_GAMES = [
    s for s in specs("tic_tac_toe") if isinstance(get_game("tic_tac_toe").formulation(s), NumberClaim)
]


@pytest.mark.parametrize("spec", NUMBER_GAMES)
def test_number_games_win_exactly_when_the_board_does(spec: str) -> None:
    """The number rules (three of yours summing to the target) decide every game as the board does."""
    f = get_game("tic_tac_toe").formulation(spec)
    assert isinstance(f, NumberClaim)
    numbers = [f.number(a) for a in range(9)]
    triples = {frozenset(t) for t in itertools.combinations(numbers, 3) if sum(t) == f.target}
    assert triples == {frozenset(f.number(a) for a in line) for line in LINES}
    for state in reachable("tic_tac_toe"):
        held = f.held(state)
        wins = [any(sum(t) == f.target for t in itertools.combinations(held[k], 3)) for k in "xo"]
        ended = any(wins) or not held["."]
        assert state.is_terminal() == ended
        if state.is_terminal():
            assert state.returns()[0] == (wins[0] - wins[1])


def test_magic_square_instances_are_the_eight_lo_shu_squares() -> None:
    """Eight symmetries give eight different arrangements, each magic; a shift moves every number."""
    tables = {get_game("tic_tac_toe").formulation(f"magic_square:symmetry={k}").table for k in range(8)}
    assert len(tables) == 8
    for table in tables:
        assert {sum(table[a] for a in line) for line in LINES} == {15}
    shifted = get_game("tic_tac_toe").formulation("magic_square:symmetry=0,shift=5")
    assert (
        shifted.table == get_game("tic_tac_toe").formulation("magic_square_plus5").table
        and shifted.target == 30
    )
    with pytest.raises(UserError, match="symmetry"):
        get_game("tic_tac_toe").formulation("magic_square:symmetry=8")


def test_magic_square_is_magic() -> None:
    assert sorted(MAGIC) == list(range(1, 10))
    assert {sum(MAGIC[a] for a in line) for line in LINES} == {15}


@pytest.mark.parametrize("game_name", GAMES.names())
def test_every_game_has_relabel_and_it_is_seeded(game_name: str) -> None:
    game = get_game(game_name)
    a, b, c = (game.formulation(f"relabel:seed={s}") for s in (3, 3, 4))
    assert a.rules() == b.rules() and a.rules() != c.rules()


@pytest.mark.parametrize(
    ("game_name", "spec"),
    [(g, s) for g in GAMES.names() for s in specs(g) if s not in ("standard", "struct")],  # struct: plain
)
def test_obfuscated_surfaces_never_name_the_game(game_name: str, spec: str) -> None:
    game = get_game(game_name)
    f = game.formulation(spec)
    rng = random.Random(0)
    state = past_chance(game.new_state(), rng)  # dice games start with a roll
    surfaces = [f.rules(), f.render_state(state), *f.legal_labels(state)]
    state.apply_action(state.legal_actions()[0])
    past_chance(state, rng)
    surfaces += [f.render_state(state), f.seat_name(0), f.seat_name(1)]
    for text in surfaces:
        assert not names_game(game, text), text


@pytest.mark.parametrize("game_name", GAMES.names())
def test_standard_rules_do_name_the_game(game_name: str) -> None:
    """Sanity check of the patterns themselves: the plain rules are recognized."""
    game = get_game(game_name)
    assert names_game(game, game.formulation("standard").rules())


@pytest.mark.parametrize(
    ("game_name", "spec", "history", "reply", "expected"),
    [
        ("tic_tac_toe", "standard", [], "I'll take b2.", 4),
        ("tic_tac_toe", "hidden", [], "row 2, column 3", 5),
        ("tic_tac_toe", "hidden", [], "R1C1", 0),
        ("tic_tac_toe", "magic_square", [], "I claim 5.", 4),
        ("tic_tac_toe", "magic_square_plus5", [], "`14`", 3),
        ("tic_tac_toe", "story", [], "jump length 9", 3),
        ("nim", "standard", [], "Pile 4: take 7", 27),
        ("nim", "hidden", [], "dim bulb 3 by 2", 6),
        ("nim", "inverse", [], "pile 2, add 3", 9),
        ("nim", "story", [], "Move Cleo 2 cells right", 6),
    ],
)
def test_lenient_replies(game_name: str, spec: str, history: list[int], reply: str, expected: int) -> None:
    game = get_game(game_name)
    assert game.formulation(spec).parse_action(game.replay(history), reply) == expected


@pytest.mark.parametrize(
    ("game_name", "spec", "history", "reply", "kind"),
    [
        ("tic_tac_toe", "magic_square", [4], "5", "illegal"),  # taken
        ("tic_tac_toe", "magic_square", [], "10", "unparseable"),  # not a number of the game
        ("tic_tac_toe", "story", [], "4 or 6", "unparseable"),  # ambiguous
        ("nim", "standard", [], "pile 1, take 2", "illegal"),  # more than the pile holds
        ("nim", "story", [], "move Zed 1", "unparseable"),
        ("nim", "inverse", [], "", "empty"),
    ],
)
def test_bad_replies(game_name: str, spec: str, history: list[int], reply: str, kind: str) -> None:
    game = get_game(game_name)
    with pytest.raises(ParseError) as err:
        game.formulation(spec).parse_action(game.replay(history), reply)
    assert getattr(err.value, "kind", None) == kind


def test_relabel_parses_a_code_word_inside_a_sentence() -> None:
    game = get_game("connect_four")
    f = game.formulation("relabel:seed=1")
    word = f.action_label(game.new_state(), 3)
    assert f.parse_action(game.new_state(), f"I drop into {word.upper()}.") == 3


def test_story_nim_danger_advances_from_the_left() -> None:
    """003 l.286: the characters 'flee a danger advancing from the left', not a danger that never moves."""
    rules = get_game("nim").formulation("story").rules()
    assert "danger is advancing from the left" in rules
    assert "never moves" not in rules and "never catches" not in rules
