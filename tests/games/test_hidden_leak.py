"""Hidden stays hidden: at every ply of a few hundred random games, for every seat, nothing a player
reads depends on what that seat cannot know.

The check: everything a seat reads (its view and, when it moves, the observation stored, the LLM
prompt, REAPER's memory entry and retrieval query; the human's screen, whether it moves or not) is
rendered again in another world the seat cannot tell from the real one (same information state at
every step of the history: `players.worlds.sample_world`, which changes the other cards, the other
dice, the unseen marks). Any difference is a leak. A formulation that renders the whole state fails
the check (`test_the_check_catches_a_formulation_that_shows_everything`).

Those worlds have the real history's length, so they cannot change how many moves the seat did not
see. Where that count varies (phantom games: each try on a cell you hold is a move of its own), a
second check compares the human's screens across random games: two games in which a seat has the
same information state must print the same screen for it (`human_screens`, `screen_leaks`).
"""

from __future__ import annotations

import asyncio
import io
import random
from collections import defaultdict
from typing import Any

import pyspiel
import pytest
from rich.console import Console

from plylab.games import Formulation, get_game
from plylab.games.hidden import NOT_FOR_TEXT, Hidden, information, playable_types
from plylab.players import GameResult, Turn, make_player
from plylab.players.human import HumanPlayer
from plylab.players.llm import build_prompt
from plylab.players.worlds import TooManyWorlds, sample_world
from plylab.specs import Params, Spec

GAMES = {"kuhn_poker": 300, "leduc_poker": 200, "liars_dice": 200, "phantom_ttt": 200}
# The other text-playable games of the class, fewer games each (the check is the same).
OTHERS = [gt.short_name for gt in playable_types() if gt.short_name not in {*NOT_FOR_TEXT, *GAMES}]


def _human_screen(game: str, f: Formulation[Any], state: pyspiel.State, seat: int) -> str:
    """What the human player of `seat` has been shown of the game so far (its announcements of the
    other seats' moves and of chance, then its view), with the real player code."""
    human = make_player("human", get_game(game), 0)
    out = io.StringIO()
    human.console = Console(file=out, width=200, highlight=False)  # type: ignore[attr-defined]
    human.seat = seat  # type: ignore[attr-defined]
    human._announce(f, state.history())  # type: ignore[attr-defined]
    return out.getvalue() + f.render_view(state, seat)


def _reaper_texts(game: str, f: Formulation[Any], state: pyspiel.State, seat: int) -> tuple[str, ...]:
    """REAPER's memory entry for a move here (observation, legal labels; the key it retrieves with is
    the observation) and the replies it notes of the other seats, with the real player code."""
    from plylab.players.reaper.player import ReaperPlayer, _Move

    reaper = ReaperPlayer.__new__(ReaperPlayer)  # no model: only the bookkeeping is exercised
    reaper._formulation, reaper._seat, reaper._seen, reaper.game = f, seat, 0, get_game(game)
    reaper.buffer = [_Move(0, "", "", [], "", "")]
    reaper._note_reply(state.history())
    observation = f.render_state(state) if state.current_player() == seat else ""
    return observation, " ".join(f.legal_labels(state)), reaper.buffer[-1].reply or ""


def _texts(game: str, f: Formulation[Any], state: pyspiel.State, seat: int) -> tuple[str, ...]:
    """Every text the seat reads at this state."""
    texts: tuple[str, ...] = (f.render_view(state, seat), _human_screen(game, f, state, seat))
    if state.current_player() == seat:
        turn = Turn(get_game(game), f, state.clone(), seat, len(state.history()), "job")
        labels = list(f.legal_labels(state))
        texts += (f.render_state(state), turn.view)
        texts += tuple(build_prompt(turn, labels, out, 300) for out in ("text", "json", "enum"))
        texts += _reaper_texts(game, f, state, seat)
    return texts


def leaks(
    game: str, f: Formulation[Any], games: int, seed: int = 0, max_nodes: int = 20_000
) -> tuple[list[str], int]:
    """(the leaks found, how many comparisons met a world that differs from the real one). A state
    whose worlds are too many to sample within `max_nodes` steps is not compared (go fish's hands
    late in a game); the callers check that enough were."""
    g = get_game(game)
    rng = random.Random(seed)
    found: list[str] = []
    differing = 0
    for n in range(games):
        state = g.new_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            for seat in range(g.engine.num_players()):
                try:
                    world = sample_world(state, seat, rng, max_nodes)
                except TooManyWorlds:
                    continue
                differing += world.serialize() != state.serialize()
                mine, theirs = _texts(game, f, state, seat), _texts(game, f, world, seat)
                if mine != theirs:
                    found.append(f"{game} game {n} ply {len(state.history())} seat {seat}")
            state.apply_action(rng.choice(state.legal_actions()))
    return found, differing


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_no_seat_reads_what_it_cannot_know(game: str) -> None:
    found, differing = leaks(game, get_game(game).formulation("standard"), GAMES[game])
    assert found == []
    assert differing > GAMES[game]  # the worlds compared really differ from the real game


@pytest.mark.slow
@pytest.mark.parametrize("game", OTHERS)
def test_other_hidden_games_leak_nothing(game: str) -> None:
    found, differing = leaks(game, get_game(game).formulation("standard"), 100)
    assert found == [] and differing >= 20


@pytest.mark.parametrize("game", ["kuhn_poker", "liars_dice"])
def test_relabel_leaks_nothing(game: str) -> None:
    found, differing = leaks(game, get_game(game).formulation("relabel:seed=1"), 30)
    assert found == [] and differing > 0


class ShowsEverything(Hidden):
    """A formulation that (wrongly) shows the whole state as the view."""

    def view(self, state: pyspiel.State, seat: int) -> str:
        return str(state)


@pytest.mark.parametrize(  # phantom tic-tac-toe's 200 positions take seconds: `make test` only
    "game", [pytest.param(g, marks=pytest.mark.slow) if g == "phantom_ttt" else g for g in sorted(GAMES)]
)
def test_the_check_catches_a_formulation_that_shows_everything(game: str) -> None:
    found, _ = leaks(game, ShowsEverything(get_game(game)), 20)
    assert found, f"a formulation rendering the whole state of {game} went unnoticed"


def test_the_check_catches_a_leaking_seen_label() -> None:
    """A formulation that names every move (the other card's deal too) to every seat is caught in
    the human's announcements and REAPER's notes."""

    class NamesEveryMove(Hidden):
        def seen_label(self, state: pyspiel.State, action: int, seat: int) -> str | None:
            return self.action_label(state, action)

    found, _ = leaks("kuhn_poker", NamesEveryMove(get_game("kuhn_poker")), 20)
    assert found


# Games where a seat's turn can follow any number of the other seat's hidden moves (each try on a
# cell you hold is a failed move of its own), with and without perfect recall.
RETRIES = ["dark_hex", "dark_hex_ir", "phantom_ttt", "phantom_ttt_ir", "phantom_ttt:obstype=reveal-numturns"]


def human_screens(
    game: str, seat: int, history: list[int], human: type[HumanPlayer] = HumanPlayer
) -> list[tuple[str, str]]:
    """What the real human player of `seat` prints along `history`, as (what the seat knows there,
    the text): at each of its turns, everything shown before the prompt, keyed by its information
    state; at the end, the last announcements and the final position, keyed by its information
    state and the payoffs (the end of a game is public)."""
    g = get_game(game)
    f = g.formulation("standard")
    player = human(Spec("human"), Params(), g, 0)
    out = io.StringIO()
    player.console = Console(file=out, width=200, highlight=False)
    screens: list[tuple[str, str]] = []
    state = g.new_state()
    for action in [*history, None]:
        if state.is_terminal():
            result = GameResult(tuple(state.returns()), seat, None, tuple(state.history()))
            asyncio.run(player.game_over(result))
            screens.append((f"{information(state, seat)}|{state.returns()}", out.getvalue()))
        elif state.current_player() == seat:
            turn = Turn(g, f, state.clone(), seat, len(state.history()), "job")
            labels = player.show_turn(turn)
            screens.append((information(state, seat), out.getvalue() + " | ".join(labels)))
        out.seek(0)
        out.truncate()
        if action is not None:
            state.apply_action(action)
    return screens


def screen_leaks(
    game: str, games: int, seed: int = 0, human: type[HumanPlayer] = HumanPlayer
) -> tuple[list[str], int]:
    """The information states of either seat at which two random games print different screens,
    and how many information states were met more than once (the comparisons made)."""
    g = get_game(game)
    rng = random.Random(seed)
    seen: dict[str, set[str]] = defaultdict(set)
    met: dict[str, int] = defaultdict(int)
    for _ in range(games):
        state = g.new_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        for seat in range(2):
            for known, text in human_screens(game, seat, state.history(), human):
                key = f"{seat}|{known}"
                seen[key].add(text)
                met[key] += 1
    return [k for k, texts in seen.items() if len(texts) > 1], sum(n > 1 for n in met.values())


@pytest.mark.slow
@pytest.mark.parametrize("game", RETRIES)
def test_the_human_screen_is_a_function_of_the_information_state(game: str) -> None:
    """Two games in which a seat has the same information state print the same screen for it: the
    opponent's hidden tries (how many, and the plies they take) are never announced."""
    found, compared = screen_leaks(game, 300)
    assert found == [], f"{len(found)} information states of {game} print two screens: {found[:3]}"
    assert compared > 100  # information states reached by several games: the comparison has teeth


class AnnouncesHiddenMoves(HumanPlayer):
    """A human player that says "moved (hidden from you)" for each move it cannot see, as the
    screen did before."""

    def _announce(self, f: Formulation[Any], history: list[int]) -> pyspiel.State:
        state = self.game.new_state()
        for i, action in enumerate(history):
            if i >= self.shown and not state.is_chance_node() and state.current_player() != self.seat:
                if f.seen_label(state, action, self.seat) is None:
                    self._say(f"{f.seat_name(state.current_player())} moved (hidden from you)")
            state.apply_action(action)
        self.shown = len(history)
        return state


@pytest.mark.slow
def test_the_screen_check_catches_a_count_of_hidden_moves() -> None:
    found, _ = screen_leaks("phantom_ttt", 40, human=AnnouncesHiddenMoves)
    assert found
