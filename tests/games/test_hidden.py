"""Hidden-information games (games/hidden.py): every one registered, each view plain and readable,
moves by OpenSpiel's labels, and what is not for text players said so."""

from __future__ import annotations

import random

import pyspiel
import pytest

from plylab.analysis.metrics import HIDDEN_GAMES
from plylab.errors import UserError
from plylab.games import GAMES, GameDef, get_game
from plylab.games.hidden import NOT_FOR_TEXT, VIEW_LIMIT, Hidden, information, playable_types
from plylab.harness.plan import single_plan

TEXT_GAMES = [gt.short_name for gt in playable_types() if gt.short_name not in NOT_FOR_TEXT]


def _random_states(game: str, games: int, seed: int = 0):
    """Every decision state of `games` random games."""
    g = get_game(game)
    rng = random.Random(seed)
    for _ in range(games):
        state = g.new_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            yield state
            state.apply_action(rng.choice(state.legal_actions()))


def test_every_imperfect_information_game_is_registered() -> None:
    """OpenSpiel's two-player zero-sum sequential imperfect-information games, none silently missing;
    the report's name list (which needs no OpenSpiel) is the same set."""
    names = {gt.short_name for gt in playable_types()}
    assert {"kuhn_poker", "leduc_poker", "liars_dice", "phantom_ttt", "dark_hex"} <= names
    for name in names:
        assert name in GAMES
        assert isinstance(get_game(name).formulation("standard"), Hidden)
        # the small ones are solved (oracles.equilibrium.BOUNDS); the rest are played unscored
        solved = name in ("kuhn_poker", "leduc_poker", "liars_dice")
        assert get_game(name).has_oracle is solved
        assert solved or "equilibrium" in get_game(name).oracle_missing
    assert names == set(HIDDEN_GAMES)


def test_not_for_text_games_are_listed_with_their_reason(cli) -> None:
    r = cli("games")
    assert r.code == 0
    lines = {line.split()[0]: line for line in r.out.splitlines() if line.strip()}
    assert {"go_fish", "repeated_leduc_poker", "kriegspiel"} <= set(NOT_FOR_TEXT)  # the README's list
    for name, why in NOT_FOR_TEXT.items():
        assert f"not for text players: {why}" in lines[name]
    assert "hidden information" in lines["kuhn_poker"] and "not for text" not in lines["kuhn_poker"]


@pytest.mark.parametrize("game", ["kriegspiel", "go_fish", "repeated_leduc_poker"])
@pytest.mark.parametrize("spec", ["llm:model=local,output=enum", "human"])
def test_text_players_are_refused_where_the_view_is_unreadable(spec: str, game: str) -> None:
    with pytest.raises(UserError, match="not for text players"):
        single_plan(game, "standard", spec, "random", 2, 0, None)
    single_plan(game, "standard", "random", "random", 2, 0, None)  # classic players may


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker", "liars_dice", "phantom_ttt", "dark_hex"])
def test_text_games_remember_the_seats_own_moves(game: str) -> None:
    """The check behind "forgets the seat's own moves" finds nothing in games with perfect recall."""
    assert forgotten_move(game, 200) is None


@pytest.mark.parametrize("game", TEXT_GAMES)
def test_views_are_readable(game: str) -> None:
    """Each text-playable game's view stays short enough to read in random games; each legal move
    parses back from its label."""
    f = get_game(game).formulation("standard")
    longest = 0
    for n, state in enumerate(_random_states(game, 5)):
        view = f.render_state(state)
        longest = max(longest, len(view))
        if n < 40:
            for label, action in f.legal_labels(state).items():
                assert f.parse_action(state, label) == action
    assert longest <= VIEW_LIMIT + 200, f"{game}: a view of {longest} characters"


def test_kuhn_view_is_plain() -> None:
    """Your card, the pot, the betting so far; never the other card."""
    g = get_game("kuhn_poker")
    f = g.formulation("standard")
    state = g.new_state()
    state.apply_action(2)  # player 1: King
    state.apply_action(0)  # player 2: Jack
    state.apply_action(1)  # player 1 bets
    view = f.render_state(state)
    assert "Your card: Jack (J)" in view
    assert "Pot: 3 chips (you have put in 1" in view
    assert "Player 1 bet" in view and "Legal moves: Bet, Pass" in view  # sorted by name (issue 46)
    assert "You are Player 2" in view
    whole = f.render_whole(state)
    assert whole is not None and whole.startswith("The whole state (OpenSpiel): 2 0 b")
    assert "Player 1 knows:\nYour card: King" in whole and "Player 2 knows:\nYour card: Jack" in whole


def test_leduc_and_liars_dice_views_are_plain() -> None:
    g = get_game("leduc_poker")
    state = g.new_state()
    state.apply_action(5)
    state.apply_action(0)
    view = g.formulation("standard").render_state(state)
    assert "Your private card: King (card 5)" in view and "Jack" not in view
    d = get_game("liars_dice")
    state = d.new_state()
    state.apply_action(2)  # player 1 rolls 3
    state.apply_action(5)  # player 2 rolls 6
    view = d.formulation("standard").render_state(state)
    assert "Your dice: 3." in view and "6" not in view.split("Legal moves")[0]


def test_seen_labels_show_public_moves_only() -> None:
    """A bet is public; the other player's card and a phantom mark are not."""
    k = get_game("kuhn_poker")
    f = k.formulation("standard")
    state = k.new_state()
    assert f.seen_label(state, 2, 0) is not None  # your own card
    state.apply_action(2)
    assert f.seen_label(state, 0, 0) is None  # the other card
    state.apply_action(0)
    assert f.seen_label(state, 1, 1) == "Bet"  # the opponent's bet
    p = get_game("phantom_ttt")
    fp = p.formulation("standard")
    state = p.new_state()
    assert fp.seen_label(state, 4, 1) is None and fp.seen_label(state, 4, 0) == "x(1,1)"


@pytest.mark.parametrize("game", ["dark_hex", "phantom_ttt", "phantom_ttt_ir"])
def test_a_hidden_move_that_was_the_only_one_possible_is_not_named(game: str) -> None:
    """A mover with one legal move left (a phantom game's last cell it has not found taken): the
    other seat cannot know the mover had one choice left, so naming the move would say where the
    hidden mark went."""
    g = get_game(game)
    f = g.formulation("standard")
    rng = random.Random(0)
    forced = 0
    for _ in range(200):
        state = g.new_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            if len(legal) == 1:
                forced += 1
                assert f.seen_label(state, legal[0], 1 - state.current_player()) is None
            state.apply_action(rng.choice(legal))
    assert forced > 10


def test_information_is_openspiels_string() -> None:
    state = get_game("kuhn_poker").new_state()
    state.apply_action(1)
    state.apply_action(2)
    assert information(state, 0) == state.information_state_string(0) == "1"


def test_a_hidden_game_relabels_without_leaking() -> None:
    g = get_game("kuhn_poker")
    f = g.formulation("relabel:seed=3")
    state = g.new_state()
    state.apply_action(2)
    state.apply_action(0)
    text = f.render_state(state)
    assert "Kuhn" not in text and "King" in text  # the game's name is disguised, the card is not
    assert "Jack" not in text.split("The deck")[1].split(";")[1]


def forgotten_move(game: str, games: int, seed: int = 0) -> tuple[int, str] | None:
    """A (seat, information state) reached in random games after two different sequences of that seat's
    own moves: an information state without perfect recall. None when every one remembers."""
    rng = random.Random(seed)
    g = get_game(game)
    seen: dict[tuple[int, str], tuple[int, ...]] = {}
    for _ in range(games):
        state = g.new_state()
        own: dict[int, tuple[int, ...]] = {}
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            seat = int(state.current_player())
            key, mine = (seat, information(state, seat)), own.get(seat, ())
            if seen.setdefault(key, mine) != mine:
                return key
            action = rng.choice(state.legal_actions())
            own[seat] = (*mine, action)
            state.apply_action(action)
    return None


@pytest.mark.parametrize("game", sorted(NOT_FOR_TEXT))
def test_each_not_for_text_reason_holds(game: str) -> None:
    """No information state at all, one that forgets the seat's own moves, or one longer than
    VIEW_LIMIT in random games."""
    gt = get_game(game).engine.get_type()
    assert game in {t.short_name for t in pyspiel.registered_games()}
    if not gt.provides_information_state_string:
        assert "no information state" in NOT_FOR_TEXT[game]
        return
    if "forgets the seat's own moves" in NOT_FOR_TEXT[game]:
        assert forgotten_move(game, 200) is not None
        return
    longest = 0
    for n, state in enumerate(_random_states(game, 1)):
        longest = max(longest, len(information(state, int(state.current_player()))))
        if longest > VIEW_LIMIT or n > 400:
            break
    assert longest > VIEW_LIMIT


@pytest.mark.parametrize(
    "spec", ["phantom_ttt:obstype=reveal-numturns", "phantom_ttt:gameversion=abrupt,obstype=reveal-numturns"]
)
def test_phantom_views_show_the_count_of_turns_where_the_game_reveals_it(spec: str) -> None:
    """`obstype=reveal-numturns` adds the count of turns and their order to the information state;
    the view (a model's prompt, the human's screen) reads them, and every seat's view renders."""
    from plylab.players import Turn
    from plylab.players.llm import build_prompt

    g = get_game(spec)
    f = g.formulation("standard")
    for state in _random_states(spec, 30):
        mover = state.current_player()
        for seat in range(2):
            view = f.render_view(state, seat)
            turns = len(state.history())
            mine = [a for s, a in zip(_movers(g, state), state.history(), strict=True) if s == seat]
            assert f"Turns so far, both players' tries counted: {turns};" in view, view
            assert (
                f"Your moves so far (cell numbers 0-8, row by row): {' '.join(map(str, mine)) or 'none'}."
                in view
            )
        turn = Turn(g, f, state.clone(), mover, len(state.history()), "job")
        assert f.render_state(state) in build_prompt(turn, list(f.legal_labels(state)), "text", 300)


def _movers(g: GameDef, state: pyspiel.State) -> list[int]:
    """Who made each move of `state`'s history."""
    walk, movers = g.new_state(), []
    for action in state.history():
        movers.append(walk.current_player())
        walk.apply_action(action)
    return movers


@pytest.mark.parametrize("size", ["0", "9", "100"])
def test_a_sense_larger_than_the_board_is_refused(cli, tmp_path, size: str) -> None:
    """OpenSpiel takes any `sense_size` and reads past the board (`rbc:sense_size=100` stopped a
    run with UnicodeDecodeError); plylab refuses it in one line."""
    got = cli("run", "--game", f"rbc:sense_size={size}", "--player", "random", "--opponent", "random",
              "--games", "1", "--score", "off", "--store", str(tmp_path / "s.sqlite"))  # fmt: skip
    assert got.code == 2 and got.err.count("\n") == 1, got.err
    assert "sense_size must be from 1 to the board's size (8)" in got.err and f"(got {size})" in got.err
    with pytest.raises(UserError, match=r"board's size \(4\)"):
        get_game("rbc:board_size=4,sense_size=5")
    state = get_game("rbc:sense_size=8").new_state()  # the largest window: one sense, the whole board
    assert [state.action_to_string(state.current_player(), a) for a in state.legal_actions()] == ["Sense a1"]
