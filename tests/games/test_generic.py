"""Every playable OpenSpiel game, through the harness: random play to the end, MCTS on a sample,
the generic surface as a bijection on random play, chance drawn from the job's seed (issue 14)."""

from __future__ import annotations

import asyncio
import json
import random

import pyspiel
import pytest

from plylab.errors import ParseError, UserError
from plylab.games import GAMES, get_game
from plylab.games.generic import Generic, playable_types
from plylab.harness.plan import GameJob, Matchup
from plylab.harness.session import play_game
from plylab.oracles.engine import maps
from tests.support.games import past_chance

# Parametrised instances named in the issue, played beside every registered game.
INSTANCES = ["nim:pile_sizes=2;4;6", "mnk:m=4,n=4,k=3", "breakthrough:rows=6,columns=6", "hex:board_size=5"]
EVERY = GAMES.names() + INSTANCES
# Games whose seeded random play costs seconds or more on two cores (an equilibrium or an engine to
# build first, or long games): in `make test`, not in the fast lane.
SLOW_TO_PLAY = {
    *("liars_dice", "leduc_poker", "crazyhouse", "chess", "antichess", "kuhn_poker", "yacht"),
    *("pig", "backgammon"),  # the exact Pig table (value iteration) and gnubg to build and start first
}
MCTS_SAMPLE = ["hex:board_size=5", "breakthrough:rows=5,columns=5", "pig", "dots_and_boxes", "clobber"]


def play(
    game: str, player: str = "random", opponent: str = "random", idx: int = 0, formulation: str = "standard"
):
    # engine-graded games: a cheap limit (bench/ measures the default); backgammon: gnubg at 0 plies
    limit = "nodes=100" if maps(game) else "plies=0" if game.startswith("backgammon") else ""
    job = GameJob(Matchup(game, formulation, player, opponent, score_limit=limit), idx, 2, 7)
    return asyncio.run(play_game(job))


def test_every_playable_openspiel_game_is_registered() -> None:
    assert {gt.short_name for gt in playable_types()} <= set(GAMES.names())
    assert {"breakthrough", "hex", "mnk", "chess", "go", "backgammon", "pig", "othello"} <= set(GAMES.names())
    assert "efg_game" not in GAMES  # general-sum, read from a file


@pytest.mark.parametrize(
    "game", [pytest.param(g, marks=pytest.mark.slow) if g in SLOW_TO_PLAY else g for g in EVERY]
)
def test_seeded_random_game_plays_to_the_end(game: str) -> None:
    rec = play(game)
    definition = get_game(game)
    assert rec.game == game and rec.forfeit_by is None and rec.failure_kind is None
    assert rec.outcome in ("win", "draw", "loss") and len(rec.moves) > 0
    assert all(m.action in json.loads(m.legal) for m in rec.moves)
    # The stored states replay: the last one plus its move reaches a finished game.
    last = definition.engine.deserialize_state(rec.moves[-1].state)
    last.apply_action(rec.moves[-1].action)
    past_chance(last, random.Random(0))
    assert last.is_terminal()
    # the result is OpenSpiel's, or the game's own count where it has one (Go: GNU Go's final_score)
    counted = definition.count(last)[0] if definition.count is not None else None
    assert rec.returns == (counted if counted is not None else [float(r) for r in last.returns()])
    # Exact values exactly where an exact oracle exists, and never elsewhere; an equilibrium grades only.
    exact = definition.has_oracle and definition.perfect_information
    assert (rec.moves[0].optimal is not None) == exact
    if definition.has_oracle:
        assert rec.moves[0].loss is not None


@pytest.mark.parametrize(
    "game",
    [
        pytest.param("backgammon", marks=pytest.mark.slow),
        pytest.param("pig", marks=pytest.mark.slow),
        "einstein_wurfelt_nicht",
    ],
)
def test_chance_is_drawn_from_the_job_seed(game: str) -> None:
    """Same job, same dice: a game with chance nodes replays exactly; another job rolls otherwise."""
    a, b, c = play(game, idx=0), play(game, idx=0), play(game, idx=1)
    assert [m.state for m in a.moves] == [m.state for m in b.moves]
    assert [m.state for m in a.moves] != [m.state for m in c.moves]


@pytest.mark.parametrize(
    "game", [pytest.param(g, marks=pytest.mark.slow) if g in SLOW_TO_PLAY else g for g in MCTS_SAMPLE]
)
def test_mcts_plays_a_sample(game: str) -> None:
    rec = play(game, player="mcts:sims=50")
    assert rec.forfeit_by is None and rec.outcome in ("win", "draw", "loss")
    assert any(m.player == "mcts:sims=50" for m in rec.moves)


def random_states(game: str, seed: int = 3, plies: int = 15) -> list[pyspiel.State]:
    """Decision states along one seeded random game (chance outcomes sampled)."""
    rng = random.Random(seed)
    state = past_chance(get_game(game).new_state(), rng)
    out = []
    while not state.is_terminal() and len(out) < plies:
        out.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
        past_chance(state, rng)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("game", EVERY)
def test_generic_surface_is_a_bijection_on_random_play(game: str) -> None:
    """Each legal move has its own label, the label parses back to it (also in another case and
    spacing, or inside a sentence), and `relabel` does the same with its code words."""
    definition = get_game(game)
    standard, relabel = definition.formulation("standard"), definition.formulation("relabel:seed=5")
    for state in random_states(game):
        for f in (standard, relabel):
            labels = f.legal_labels(state)
            assert sorted(labels.values()) == state.legal_actions(), f.name
            for label, action in labels.items():
                assert f.parse_action(state, label) == action
            text = f.render_state(state)
            assert all(label in text for label in labels) or not isinstance(f, Generic)
        if isinstance(standard, Generic):
            label, action = next(iter(standard.legal_labels(state).items()))
            squashed = {standard.squash(x) for x in standard.legal_labels(state)}
            if len(squashed) == len(state.legal_actions()):
                assert standard.parse_action(state, f"  {label.swapcase()} ") == action
            assert standard.parse_action(state, f"I will play {label} now.") == action or len(label) < 2


def test_a_non_move_and_an_illegal_move_are_told_apart() -> None:
    game = get_game("breakthrough:rows=6,columns=6")
    f, state = game.formulation("standard"), game.new_state()
    with pytest.raises(ParseError) as err:
        f.parse_action(state, "a1a2")  # White's move while Black is to move
    assert err.value.kind == "illegal"
    with pytest.raises(ParseError) as err:
        f.parse_action(state, "castle long")
    assert err.value.kind == "unparseable"
    assert f.parse_action(state, "A5a4") == f.parse_action(state, "a5a4")


def test_breakthrough_is_first_class_with_a_hidden_formulation() -> None:
    game = get_game("breakthrough")
    assert {"standard", "hidden", "relabel"} <= set(game.formulations.names())
    hidden = game.formulation("hidden")
    state = game.new_state()
    text = hidden.rules() + hidden.render_state(state)
    assert "breakthrough" not in text.lower() and "X" in hidden.render_state(state)
    assert "8 rows" in game.formulation("standard").rules()
    assert "6 rows" in get_game("breakthrough:rows=6,columns=6").formulation("hidden").rules()
    # Same moves, same labels: hidden only redraws the pieces.
    assert hidden.legal_labels(state) == game.formulation("standard").legal_labels(state)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("mnk:q=3", "game 'mnk' has no parameter 'q'; parameters: k=5, m=15, n=15"),
        ("mnk:m=big", "parameter 'm' must be an integer (got 'big')"),
        ("nim:is_misere=maybe", "parameter 'is_misere' must be true or false"),
        ("pig:players=3", "game 'pig' has no parameter 'players'"),  # fixed at two
        ("twixt:ansi_color_output=true", "has no parameter 'ansi_color_output'"),
        ("hex:board_size=-3", "parameter 'board_size' must be between 0 and 2147483647"),
        ("nim:pile_sizes=2;x", "game 'nim:pile_sizes=2;x' is not valid: Could not parse size 'x'"),
        ("nim:pile_sizes=0", "is over before it starts"),
        ("breakthrough:rows=1", "game 'breakthrough:rows=1' is not valid: rows_ > 1"),
    ],
)
def test_bad_game_parameters_are_one_line(name: str, message: str) -> None:
    with pytest.raises(UserError) as err:
        get_game(name)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_parameters_reach_the_engine_and_name_one_game() -> None:
    nim = get_game("nim:pile_sizes=2;4;6")
    assert str(nim.new_state()).endswith("2 4 6") and nim.title == "Misère Nim {2,4,6}"
    assert get_game("mnk:m=4,n=4,k=3") is get_game("mnk:m=4,n=4,k=3")
    assert get_game("mnk:m=4,n=4,k=3").spec == get_game("mnk:k=3,n=4,m=4").spec == "mnk:k=3,m=4,n=4"
    assert get_game("nim:pile_sizes=1;3;5;7") is get_game("nim")  # the defaults are the game itself
    assert get_game("mnk:m=4,n=4,k=3").engine.num_distinct_actions() == 16
    assert "4 columns and 4 rows" in get_game("mnk:m=4,n=4,k=3").formulation("standard").rules()


def test_games_listing_says_parameters_formulations_and_oracle(cli) -> None:
    rows = {r["name"]: r for r in json.loads(cli("games", "--format", "json").out)["games"]}
    assert set(rows) == set(GAMES.names())
    assert rows["mnk"]["parameters"] == {"k": 5, "m": 15, "n": 15}
    assert rows["tic_tac_toe"]["oracle"] and not rows["chess"]["oracle"]
    assert rows["pig"]["chance"] and not rows["hex"]["chance"]
    assert "hidden" in rows["breakthrough"]["formulations"]
    table = cli("games").out
    assert "breakthrough" in table and "params: columns=8, rows=8" in table


@pytest.mark.slow
def test_the_issue_commands_run_and_report(cli, tmp_path) -> None:
    store = str(tmp_path / "s.sqlite")
    r = cli(
        "run",
        "--game",
        "hex:board_size=5",
        "--player",
        "mcts:sims=200",
        "--opponent",
        "random",
        "--games",
        "4",
        "--store",
        store,
        "--quiet",
    )
    assert r.code == 0, r.err
    r = cli(
        "run",
        "--game",
        "mnk:m=3,n=4,k=3",
        "--player",
        "random",
        "--opponent",
        "optimal",
        "--games",
        "4",
        "--store",
        store,
        "--quiet",
    )
    assert r.code == 0, r.err
    rows = {
        m["game"]: m for m in json.loads(cli("report", "--store", store, "--format", "json").out)["matchups"]
    }
    assert set(rows) == {"hex:board_size=5", "mnk:m=3,n=4,k=3"}  # the game as named, parameters included
    assert rows["hex:board_size=5"]["games"] == 4 and rows["mnk:m=3,n=4,k=3"]["games"] == 4
    assert rows["mnk:m=3,n=4,k=3"]["optimality"]["scored"] > 0  # the generic oracle scores it


def test_score_off_leaves_every_move_unscored(cli, tmp_path) -> None:
    store = str(tmp_path / "s.sqlite")
    r = cli(
        "run",
        "--game",
        "tic_tac_toe",
        "--player",
        "random",
        "--opponent",
        "random",
        "--games",
        "2",
        "--store",
        store,
        "--quiet",
        "--score",
        "off",
    )
    assert r.code == 0, r.err
    [row] = json.loads(cli("report", "--store", store, "--format", "json").out)["matchups"]
    assert row["games"] == 2 and row["optimality"]["scored"] == 0
    bad = cli(
        "run",
        "--game",
        "tic_tac_toe",
        "--player",
        "random",
        "--opponent",
        "random",
        "--score",
        "maybe",
        "--store",
        store,
    )
    assert bad.code == 2 and "--score 'maybe' is not accepted; use on, off, nodes=N" in bad.err


def test_optimal_needs_an_oracle(cli, tmp_path) -> None:
    r = cli(
        "run",
        "--game",
        "hex:board_size=5",
        "--player",
        "random",
        "--opponent",
        "optimal",
        "--store",
        str(tmp_path / "s.sqlite"),
        "--quiet",
    )
    assert r.code == 2 and "needs an exact oracle" in r.err


@pytest.mark.parametrize("spec", ["standard", "relabel:seed=2"])
def test_a_position_awaiting_the_dice_renders(spec: str) -> None:
    """A replay page may show a position whose next move is chance: it renders, listing no moves."""
    game = get_game("backgammon")
    text = game.formulation(spec).render_state(game.new_state())
    assert "chance move" in text and "Legal moves" not in text


@pytest.mark.parametrize(
    ("game", "text"),
    [
        ("breakthrough", "This looks like Breakthrough."),
        ("dots_and_boxes", "a game of dots-and-boxes"),
        ("mnk", "an m,n,k-game, really"),
        ("nine_mens_morris", "Nine men's morris!"),
        ("hex:board_size=5", "HEX"),
    ],
)
def test_recognition_knows_the_name_and_aliases(game: str, text: str) -> None:
    from plylab.analysis.recognition import names_game

    definition = get_game(game)
    assert names_game(definition, text)
    assert not names_game(definition, "a quiet board game about territory and patience")


def test_a_plan_file_may_turn_scoring_off(cli, tmp_path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        'games: ["mnk:m=3,n=3,k=3"]\nplayers: [random]\nopponents: [optimal]\ngames_per_matchup: 2\nscore: false\n'
    )
    store = str(tmp_path / "s.sqlite")
    assert cli("run", "--config", str(plan), "--store", store, "--quiet").code == 0
    [row] = json.loads(cli("report", "--store", store, "--format", "json").out)["matchups"]
    assert row["game"] == "mnk:m=3,n=3,k=3" and row["games"] == 2 and row["optimality"]["scored"] == 0
