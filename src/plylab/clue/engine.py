"""Clue as an OpenSpiel game (`python_clue`), registered with pyspiel.

Chance deals the cards one at a time (envelope suspect, weapon, room, then round-robin from seat
0), so a seeded sampler gives seeded deals and uneven hands fall out of the round-robin. A turn is
one action: suggest a triple, accuse a triple, or pass. After a suggestion the first player
clockwise holding one of the three becomes the player to move and chooses which card to show
(that choice is a real decision in Clue); then play moves to the next seat still in. A right
accusation wins (+1, everyone else 0); a wrong one puts the accuser out, though it keeps
answering suggestions. The game also ends when everyone is out or after `turn_limit` turns.

Action ids: 0..C-1 show card c; C + t suggest triple t; C + T + t accuse triple t; C + 2T pass,
where C is the number of cards and T the number of triples.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import pyspiel

from .cards import Deck, Triple
from .events import Accusation, Event, Pass, Suggestion, seen_by
from .view import ClueView, ShowRequest

GAME_NAME = "python_clue"
DEFAULT_TURN_LIMIT = 150
_DEFAULTS = {"players": 6, "suspects": 6, "weapons": 6, "rooms": 9, "turn_limit": DEFAULT_TURN_LIMIT}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Clue (text version, no board)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=False,
    parameter_specification=_DEFAULTS,
)


class ClueGame(pyspiel.Game):
    def __init__(self, params: dict[str, int] | None = None) -> None:
        p = {**_DEFAULTS, **(params or {})}
        self.deck = Deck.of_sizes(int(p["suspects"]), int(p["weapons"]), int(p["rooms"]))
        self.players = int(p["players"])
        self.turn_limit = int(p["turn_limit"])
        if not 3 <= self.players <= 6:
            raise ValueError(f"Clue needs 3 to 6 players, got {self.players}")
        if self.deck.size - 3 < self.players:
            raise ValueError("the deck is too small to give every player a card")
        if self.turn_limit < 1:
            raise ValueError("turn_limit must be at least 1")
        n_cards, n_triples = self.deck.size, len(self.deck.triples)
        info = pyspiel.GameInfo(
            num_distinct_actions=n_cards + 2 * n_triples + 1,
            max_chance_outcomes=n_cards,
            num_players=self.players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=n_cards + 2 * self.turn_limit,
        )
        super().__init__(_GAME_TYPE, info, p)

    def new_initial_state(self) -> ClueState:
        return ClueState(self)

    def deserialize_state(self, text: str) -> ClueState:
        """The state `ClueState.serialize` wrote: its actions replayed from the start."""
        state = self.new_initial_state()
        for action in text.split():
            state.apply_action(int(action))
        return state

    def make_py_observer(self, iig_obs_type: object = None, params: object = None) -> ClueObserver:
        return ClueObserver(params)

    # action coding -------------------------------------------------------------------
    def suggest_action(self, triple: Triple) -> int:
        return self.deck.size + self.deck.triple_id(triple)

    def accuse_action(self, triple: Triple) -> int:
        return self.deck.size + len(self.deck.triples) + self.deck.triple_id(triple)

    @property
    def pass_action(self) -> int:
        return self.deck.size + 2 * len(self.deck.triples)

    def decode(self, action: int) -> tuple[str, Any]:
        """('show', card) | ('suggest', triple) | ('accuse', triple) | ('pass', None)."""
        c, t = self.deck.size, len(self.deck.triples)
        if 0 <= action < c:
            return "show", action
        if c <= action < c + t:
            return "suggest", self.deck.triples[action - c]
        if c + t <= action < c + 2 * t:
            return "accuse", self.deck.triples[action - c - t]
        if action == c + 2 * t:
            return "pass", None
        raise ValueError(f"action {action} is not a Clue action")


class ClueState(pyspiel.State):
    def __init__(self, game: ClueGame) -> None:
        super().__init__(game)
        self.deck = game.deck
        self.n = game.players
        self.turn_limit = game.turn_limit
        self.holder = [-1] * self.deck.size  # card -> seat, or n for the envelope
        self.envelope: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        self._dealt = 0
        self.current = 0
        self.turn = 0  # turns started so far; the one being played is `turn`
        self.round = 1
        self.out: set[int] = set()
        self.events: list[Event] = []
        self.pending: tuple[int, Triple, int] | None = None  # (suggester, triple, disprover)
        self.winner: int | None = None
        self._over = False

    # dealing ---------------------------------------------------------------------------
    def _deal_slot(self) -> tuple[int, ...]:
        """Cards the next chance outcome may take (a category for the envelope, else any left)."""
        if self._dealt < 3:
            return self.deck.categories[self._dealt]
        return tuple(c for c in range(self.deck.size) if self.holder[c] < 0)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        cards = self._deal_slot()
        return [(c, 1.0 / len(cards)) for c in cards]

    @property
    def dealing(self) -> bool:
        return self._dealt < self.deck.size

    # pyspiel API -----------------------------------------------------------------------
    def current_player(self) -> int:
        if self._over:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.dealing:
            return int(pyspiel.PlayerId.CHANCE)
        if self.pending is not None:
            return self.pending[2]
        return self.current

    def _legal_actions(self, player: int) -> list[int]:
        game: ClueGame = self.get_game()
        if self.pending is not None:
            return sorted(self.show_options())
        return list(range(self.deck.size, game.pass_action + 1))

    def show_options(self) -> tuple[int, ...]:
        assert self.pending is not None
        _, triple, disprover = self.pending
        return tuple(c for c in triple if self.holder[c] == disprover)

    def _apply_action(self, action: int) -> None:
        if self.dealing:
            if action not in self._deal_slot():
                raise ValueError(f"card {action} cannot be dealt now")
            to = self.n if self._dealt < 3 else (self._dealt - 3) % self.n
            self.holder[action] = to
            (self.envelope if to == self.n else self.hands[to]).append(action)
            self._dealt += 1
            if not self.dealing:
                self.turn = 1
            return
        game: ClueGame = self.get_game()
        kind, arg = game.decode(action)
        if self.pending is not None:
            suggester, triple, disprover = self.pending
            if kind != "show" or arg not in self.show_options():
                raise ValueError(
                    f"player {disprover + 1} must show one of {self.show_options()}, not {action}"
                )
            self.events.append(Suggestion(self.turn, self.round, suggester, triple, disprover, arg))
            self.pending = None
            self._end_turn()
            return
        if kind == "show":
            raise ValueError("there is no suggestion to answer")
        me = self.current
        if kind == "suggest":
            who = self.disprover(me, arg)
            if who is None:
                self.events.append(Suggestion(self.turn, self.round, me, arg, None, None))
                self._end_turn()
            else:
                self.pending = (me, arg, who)
        elif kind == "accuse":
            correct = sorted(arg) == sorted(self.envelope)
            self.events.append(Accusation(self.turn, self.round, me, arg, correct))
            if correct:
                self.winner = me
                self._over = True
            else:
                self.out.add(me)
                self._end_turn()
        else:
            self.events.append(Pass(self.turn, self.round, me))
            self._end_turn()

    def disprover(self, suggester: int, triple: Triple) -> int | None:
        """The first seat after the suggester holding a card of the triple (None: nobody can)."""
        for step in range(1, self.n):
            seat = (suggester + step) % self.n
            if any(self.holder[c] == seat for c in triple):
                return seat
        return None

    def _end_turn(self) -> None:
        if len(self.out) == self.n or self.turn >= self.turn_limit:
            self._over = True
            return
        nxt = next(
            (self.current + k) % self.n
            for k in range(1, self.n + 1)
            if (self.current + k) % self.n not in self.out
        )
        if nxt <= self.current:
            self.round += 1
        self.current = nxt
        self.turn += 1

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"Deal {self.deck.name(action)}"
        kind, arg = self.get_game().decode(action)
        if kind == "show":
            return f"Show {self.deck.name(arg)}"
        if kind == "pass":
            return "Pass"
        return f"{kind.capitalize()} {self.deck.describe(arg)}"

    def is_terminal(self) -> bool:
        return self._over

    def serialize(self) -> str:
        """The actions so far (the deal's included), which determine the state: a few hundred bytes
        where pyspiel's default for a Python game pickles the whole object at every stored move."""
        return " ".join(map(str, self.history()))

    def returns(self) -> list[float]:
        return [1.0 if seat == self.winner else 0.0 for seat in range(self.n)]

    def __str__(self) -> str:
        hands = "; ".join(f"P{i + 1}: {self.deck.describe(sorted(h))}" for i, h in enumerate(self.hands))
        return f"envelope: {self.deck.describe(self.envelope)} | {hands} | turn {self.turn}, events {len(self.events)}"

    # views -----------------------------------------------------------------------------
    @property
    def hand_sizes(self) -> tuple[int, ...]:
        rest = self.deck.size - 3
        return tuple(rest // self.n + (1 if seat < rest % self.n else 0) for seat in range(self.n))

    def view(self, player: int) -> ClueView:
        """What `player` may know now: its hand, the public record, its own reveals."""
        show = pending = None
        if self.pending is not None:
            suggester, triple, disprover = self.pending
            pending = Suggestion(self.turn, self.round, suggester, triple, disprover, None)
            if disprover == player:
                show = ShowRequest(suggester, triple, self.show_options())
        return ClueView(
            deck=self.deck,
            me=player,
            num_players=self.n,
            hand=tuple(sorted(self.hands[player])),
            hand_sizes=self.hand_sizes,
            events=tuple(seen_by(e, player) for e in self.events),
            turn=self.turn,
            round=self.round,
            out=frozenset(self.out),
            turn_limit=self.turn_limit,
            pending=pending,
            show=show,
        )

    # helpers for seeded play and replays --------------------------------------------------
    def deal_randomly(self, rng: random.Random) -> None:
        while self.dealing:
            self.apply_action(rng.choice(self._deal_slot()))

    def deal(self, envelope: Sequence[int], hands: Sequence[Sequence[int]]) -> None:
        """Deal a given assignment (hand sizes must match the round-robin deal)."""
        for card in envelope:
            self.apply_action(card)
        queues = [list(h) for h in hands]
        for k in range(self.deck.size - 3):
            self.apply_action(queues[k % self.n].pop(0))


class ClueObserver:
    """String-only observer: the information state is the player's view, rendered as text."""

    def __init__(self, params: object = None) -> None:
        if params:
            raise ValueError(f"observation parameters not supported: {params}")
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: ClueState, player: int) -> None:
        pass

    def string_from(self, state: ClueState, player: int) -> str:
        if state.dealing:
            return f"dealing; player {player + 1}"
        from .prompts import render_view  # prompts import the engine's deck only; no cycle at call time

        return render_view(state.view(player))


pyspiel.register_game(_GAME_TYPE, ClueGame)


def load(
    players: int = 6,
    turn_limit: int = DEFAULT_TURN_LIMIT,
    suspects: int = 6,
    weapons: int = 6,
    rooms: int = 9,
) -> ClueGame:
    return cast(
        ClueGame,
        pyspiel.load_game(
            GAME_NAME,
            {
                "players": players,
                "turn_limit": turn_limit,
                "suspects": suspects,
                "weapons": weapons,
                "rooms": rooms,
            },
        ),
    )
