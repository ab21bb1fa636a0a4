"""The order the legal moves are listed in carries nothing a disguise hides (issue 46, point 1).

Listed in cell order, `magic_square`'s moves read `2, 7, 6, 9, 5, 1, 4, 3, 8`: the Lo Shu square row by
row, the board the disguise hides. plybench 3.0.5 sorts them by name (`order_actions=True` in its
tic-tac-toe games, the sort in its prompt adapter) and lists Nim's and Connect Four's in the engine's
order. Here: plylab's order against plybench's adapter run on the same positions, and, for every game
and formulation, the listing sorted by name unless it is one of plybench's engine-order games.
"""

from __future__ import annotations

import json
import random
import sqlite3

import pytest

from plylab.games import GAMES, get_game
from plylab.games.tic_tac_toe import magic_numbers
from plylab.players import Turn
from plylab.players.llm import build_prompt
from tests.games.test_formulations import MAGIC_INSTANCES, specs
from tests.support.fake_openai_server import FakeOpenAIServer
from tests.support.games import past_chance
from tests.support.plybench import SKIP, in_plybench

# plybench's engines in the side venv: the legal moves of each position as its prompt adapter lists
# them, each with its engine action. A magic square is set to plylab's layout (`set_state`), so both
# sides name the same cells by the same numbers.
SIDE = """
import json, sys
from plybench.configs.game_config import GameConfig
from plybench.configs.game_params import NoGameParams
from plybench.games.connect_four.connect_four import ConnectFourEngine
from plybench.games.nim.inverse_nim import InverseNimEngine
from plybench.games.nim.modified_nim import ModifiedNimEngine
from plybench.games.nim.nim import NimEngine, NimGameParams
from plybench.games.nim.story_nim import StoryNimEngine
from plybench.games.tic_tac_toe.magic_square import MagicSquareEngine, MagicSquareGameParams
from plybench.games.tic_tac_toe.story_magic_square import StoryMagicSquareEngine
from plybench.games.tic_tac_toe.tic_tac_toe import TicTacToeEngine

ENGINES = {
    "tic_tac_toe": (TicTacToeEngine, NoGameParams), "connect_four": (ConnectFourEngine, NoGameParams),
    "modified_nim": (ModifiedNimEngine, NoGameParams), "nim": (NimEngine, NimGameParams),
    "inverse_nim": (InverseNimEngine, NimGameParams), "story_nim": (StoryNimEngine, NimGameParams),
    "story_magic_square": (StoryMagicSquareEngine, MagicSquareGameParams),
}
out = []
for case in json.load(sys.stdin):
    if case["game"] == "magic_square":
        e = MagicSquareEngine(GameConfig("magic_square", MagicSquareGameParams(magic_constant_add=case["add"])))
    else:
        engine, params = ENGINES[case["game"]]
        e = engine(GameConfig(case["game"], params()))
    e.reset()
    if case["layout"]:
        e.interface_transformer.set_state(case["layout"])
    listings = []
    for history in case["histories"]:
        e.game.reset()
        for a in history:
            e.game.state.apply_action(a)
        moves = e.game.get_legal_moves(e.game.get_player())
        actions = [e.action_class.from_openspiel(m, e.interface_transformer) for m in moves]
        number = {a.to_llm().string: a.number for a in actions}
        listings.append([[x.string, number[x.string]] for x in e.prompt_adapter.format_legal_actions(actions)])
    out.append(listings)
json.dump(out, sys.stdout)
"""


def layout(spec: str) -> list[list[int]]:
    """plylab's magic square of a formulation as plybench's 3x3 layout (row by row)."""
    f = get_game("tic_tac_toe").formulation(spec)
    numbers = [int(f.action_label(get_game("tic_tac_toe").new_state(), a)) for a in range(9)]
    return [numbers[0:3], numbers[3:6], numbers[6:9]]


# (plylab game, formulation, plybench game, its magic constant's shift, its layout): the formulations
# plybench has. Its inverse and story Nim start from piles 7, 5, 3, 1, its others from 1, 3, 5, 7.
PAIRS = [
    ("tic_tac_toe", "standard", "tic_tac_toe", 0, None),
    ("tic_tac_toe", "magic_square", "magic_square", 0, layout("magic_square")),
    ("tic_tac_toe", "magic_square_plus5", "magic_square", 5, layout("magic_square_plus5")),
    ("tic_tac_toe", "story", "story_magic_square", 0, layout("story")),
    *[
        ("tic_tac_toe", spec, "magic_square", int(spec.rsplit("=", 1)[1]), layout(spec))
        for spec in [*MAGIC_INSTANCES, "magic_square:symmetry=3,shift=7"]
    ],
    ("nim", "standard", "nim", 0, None),
    ("nim", "hidden", "modified_nim", 0, None),
    ("nim:pile_sizes=7;5;3;1", "inverse", "inverse_nim", 0, None),
    ("nim:pile_sizes=7;5;3;1", "story", "story_nim", 0, None),
    ("connect_four", "standard", "connect_four", 0, None),
]


def histories(game_name: str, n: int, seed: int) -> list[list[int]]:
    """`n` positions by random play (the start among them), each as the engine actions reaching it."""
    game, rng, out = get_game(game_name), random.Random(seed), [[]]
    while len(out) < n:
        state = game.new_state()
        for _ in range(rng.randrange(1, 9)):
            state.apply_action(rng.choice(state.legal_actions()))
            if state.is_terminal():
                break
            out.append(list(state.history()))
    return out[:n]


@SKIP
def test_the_legal_moves_are_listed_in_plybenchs_order() -> None:
    cases = [(g, f, histories(g, 12, i)) for i, (g, f, _, _, _) in enumerate(PAIRS)]
    payload = [
        {"game": pb, "add": add, "layout": lay, "histories": h}
        for (_, _, pb, add, lay), (_, _, h) in zip(PAIRS, cases)
    ]
    theirs = in_plybench(SIDE, payload)
    assert isinstance(theirs, list)
    compared = 0
    for (game_name, spec, history), listings in zip(cases, theirs):
        game = get_game(game_name)
        f = game.formulation(spec)
        assert isinstance(listings, list)
        for actions, listing in zip(history, listings):
            state = game.replay(actions)
            ours = list(f.legal_labels(state).values())
            assert isinstance(listing, list)
            assert ours == [a for _, a in listing], (game_name, spec, actions, listing)  # type: ignore[index]
            compared += 1
    assert compared == 12 * len(PAIRS)


def listing_cases() -> list[tuple[str, str]]:
    return [(g, s) for g in GAMES.names() for s in specs(g)]


# The formulations whose moves are listed in the engine's order, as plybench lists Nim and Connect
# Four: their names spell the order out (amount then pile; the column). Every other is sorted by name.
ENGINE_ORDER = {("nim", s) for s in ("standard", "hidden", "inverse", "story")} | {
    ("connect_four", "standard")
}


@pytest.mark.parametrize(("game_name", "spec"), listing_cases())
def test_every_listing_is_sorted_by_name_or_is_plybenchs_engine_order(game_name: str, spec: str) -> None:
    """On positions of random play: a listing is the names sorted (so its order is the names'
    alone), or, for Nim's and Connect Four's formulations only, the engine's order."""
    game = get_game(game_name)
    f = game.formulation(spec)
    rng = random.Random(1)
    seen = 0
    for _ in range(3):
        state = past_chance(game.new_state(), rng)
        for _ in range(6):
            if state.is_terminal():
                break
            legal = f.legal_labels(state)
            names, actions = list(legal), list(legal.values())
            if (game_name, spec) in ENGINE_ORDER:
                assert actions == sorted(actions), names
            else:
                assert names == sorted(names), names
            seen += 1
            state.apply_action(rng.choice(state.legal_actions()))
            past_chance(state, rng)
    assert seen > 0
    assert f.order_actions == ((game_name, spec) not in ENGINE_ORDER)


@pytest.mark.parametrize("shift", [0, 5, -4, 11])
def test_a_magic_square_lists_the_same_words_under_each_of_its_symmetries(shift: int) -> None:
    """The eight Lo Shu arrangements put the numbers on different cells: with the same numbers free,
    every one lists the same words in the same order, so the listing says nothing of the cells."""
    game = get_game("tic_tac_toe")
    rng = random.Random(shift)
    for _ in range(20):
        taken = rng.sample(range(1, 10), rng.randrange(0, 5))
        listings = set()
        for symmetry in range(8):
            f = game.formulation(f"magic_square:symmetry={symmetry},shift={shift}")
            numbers = magic_numbers(symmetry, shift)
            state = game.new_state()
            for number in taken:  # the same numbers claimed, on this arrangement's cells
                state.apply_action(numbers.index(number + shift))
            listings.add(tuple(f.legal_labels(state)))
        assert len(listings) == 1, listings


@pytest.mark.parametrize(
    "spec", ["magic_square", "magic_square_plus5", "story", "magic_square:symmetry=3,shift=7"]
)
def test_the_prompt_lists_a_disguise_by_name_not_by_cell(spec: str) -> None:
    game = get_game("tic_tac_toe")
    f = game.formulation(spec)
    state = game.new_state()
    labels = list(f.legal_labels(state))
    prompt = build_prompt(Turn(game, f, state, 0, 0, "j"), labels, "text", 0)
    listed = [line[2:] for line in prompt.split("Legal moves:\n", 1)[1].split("\n\n")[0].splitlines()]
    cells = [f.action_label(state, a) for a in range(9)]
    assert listed == sorted(cells) and listed != cells


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with FakeOpenAIServer() as srv:
        monkeypatch.setenv("FAKE_BASE_URL", srv.url)
        monkeypatch.setenv("FAKE_API_KEY", "sk-fake")
        yield srv


def test_a_new_run_records_the_sorted_listing_and_asks_with_it(cli, server, tmp_path) -> None:
    """The model is asked with the moves sorted, and the run records it (`llm_listing`), so a run
    stored before (engine order) resumes with its own prompts: tests/players/test_llm_prompt.py."""
    store = tmp_path / "s.sqlite"
    args = ["run", "--game", "tic_tac_toe", "--formulation", "magic_square", "--player"]
    res = cli(
        *args,
        "llm:model=openai-api/fake/m",
        "--opponent",
        "random",
        "--games",
        "1",
        "--store",
        str(store),
        "-q",
    )
    assert res.code == 0, res.err
    asked = [m["content"] for r in server.requests for m in r["messages"] if m["role"] == "user"]
    assert asked
    for prompt in asked:
        listed = [line[2:] for line in prompt.split("Legal moves:\n", 1)[1].split("\n\n")[0].splitlines()]
        assert listed == sorted(listed)
    assert "2\n- 7\n- 6" not in asked[0]  # the Lo Shu square's first row, read in cell order
    plan = json.loads(sqlite3.connect(store).execute("SELECT plan FROM runs").fetchone()[0])
    assert plan["llm_listing"] == "sorted"
