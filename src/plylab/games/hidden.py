"""Every two-player zero-sum imperfect-information OpenSpiel game (poker, dice, phantom games).

Each is registered under its OpenSpiel name with a `standard` formulation whose view is built from
ONE string: OpenSpiel's information state of the seat (its observation where the game has no
information state), so nothing a seat cannot know can reach it: a plain renderer per game reads
that string and nothing else (Kuhn poker: your card, the pot, the betting so far), any other game
shows it as OpenSpiel writes it. The whole state (hands and dice revealed) is only for replays
(`render_whole`). Moves are OpenSpiel's labels, parsed back as the generic games do. A move of
another seat or of chance is shown to a seat only when that seat's information tells it apart
from every other move possible there (`seen_label`): in poker a bet is public, in phantom
tic-tac-toe the opponent's mark is not. Games whose information state is too large to read are
registered but marked `not_for_text`, with the reason `plylab games` prints.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pyspiel

from ..errors import UserError
from .base import GAMES, GameDef, register_game
from .generic import Generic, zero_sum_types
from .rules import MOVES, rules_text
from .surface import LEGAL_LINE

# Of the class, yet not games of their own: wrappers around another game given as a parameter.
EXCLUDED = frozenset({"zerosum", "repeated_poker"})
# Games a person or a model cannot play from text, with the reason `plylab games` prints: an information
# state too long to read (longer than VIEW_LIMIT in random games), none at all (only an observation that
# drops the history a player would have to remember), or one that forgets the seat's own earlier moves
# (two positions the seat tells apart read the same; tests/games/test_hidden.py checks each reason holds).
NOT_FOR_TEXT: dict[str, str] = {
    "dark_chess": "OpenSpiel gives it no information state, only the visible board without the moves "
    "that led there, over hundreds of plies",
    "kriegspiel": "its information state is the umpire's whole transcript, over 9,000 characters in a long game",
    "phantom_go": "OpenSpiel gives it no information state, only a 9x9 board of stones found, without the "
    "attempts that led there, over hundreds of plies",
    "rbc": "OpenSpiel gives it no information state, only a board of sensed squares without the history "
    "of senses and moves",
    "gin_rummy": "OpenSpiel gives it no information state, only over 500 characters of card lists without "
    "the history of draws and discards",
    "go_fish": "its information state forgets the seat's own moves: the hand and the card counts, without "
    "the asks and answers a player must remember",
    "repeated_leduc_poker": "its information state forgets the seat's own moves: the current hand only, "
    "without the hands played before it",
}
PLAIN = {"players": 2}  # two seats, for games that take more
# Names a reply or a trace may use for the game (recognition; `relabel` hides them all).
ALIASES: dict[str, tuple[str, ...]] = {
    "kuhn_poker": ("Kuhn poker",),
    "leduc_poker": ("Leduc poker", "Leduc hold'em", "Leduc holdem"),
    "liars_dice": ("Liar's dice", "Liars dice", "Perudo", "Dudo"),
    "phantom_ttt": ("phantom tic-tac-toe", "tic-tac-toe", "tic tac toe", "noughts and crosses"),
}
VIEW_LIMIT = 600  # the longest a readable view may be (characters), checked by the tests

RANKS = "JQKA"  # Kuhn's cards in order (a deck of seats + 1 cards)
RANK_NAMES = {"J": "Jack", "Q": "Queen", "K": "King", "A": "Ace"}


def playable_types() -> list[pyspiel.GameType]:
    """OpenSpiel's two-player, zero-sum, sequential, imperfect-information games."""
    return zero_sum_types(pyspiel.GameType.Information.IMPERFECT_INFORMATION, EXCLUDED)


def information(state: pyspiel.State, seat: int) -> str:
    """What `seat` may know, as OpenSpiel writes it: its information state (perfect recall), else
    its observation."""
    if state.get_game().get_type().provides_information_state_string:
        return str(state.information_state_string(seat))
    return str(state.observation_string(seat))


# -- plain renderers: each reads the seat's information string and nothing else ---------------


def _seat(seat: int, me: int) -> str:
    return f"Player {seat + 1}" + (" (you)" if seat == me else "")


def _kuhn(game: GameDef, info: str, me: int) -> str:
    if not info:
        return "The cards are being dealt."
    card, bets = RANKS[int(info[0])], info[1:]
    seats = game.engine.num_players()
    put = [1] * seats
    words = []
    for i, b in enumerate(bets):
        who = i % seats
        if b == "b":
            put[who] += 1
        words.append(f"{_seat(who, me)} {'bet' if b == 'b' else 'passed'}")
    deck = ", ".join(RANK_NAMES[r] for r in RANKS[: seats + 1])
    return "\n".join(
        [
            f"Your card: {RANK_NAMES[card]} ({card}). The deck: {deck}; one card each, the rest unseen.",
            f"Pot: {sum(put)} chips (you have put in {put[me]}; each player antes 1).",
            "Betting so far: " + ("; ".join(words) if words else "none") + ".",
        ]
    )


LEDUC_ACTIONS = {"0": "folded", "1": "called", "2": "raised"}


def _leduc_card(code: str) -> str:
    card = int(code)
    return f"{RANK_NAMES['JQK'[card // 2]]} (card {card})"


def _leduc(game: GameDef, info: str, me: int) -> str:
    fields = dict(re.findall(r"\[([A-Za-z0-9 ]+?):? ([^\]]*)\]", info))
    private = fields.get("Private", "").strip()
    if not private or private.startswith("-"):
        return "The cards are being dealt."
    lines = [f"Your private card: {_leduc_card(private)}."]
    public = fields.get("Public", "").strip()
    lines.append(
        f"The public card: {_leduc_card(public)}."
        if public and not public.startswith("-")
        else "The public card is not dealt yet (it comes after the first betting round)."
    )
    money = fields.get("Money", "").split()
    lines.append(
        f"Pot: {fields.get('Pot', '?').strip()} chips. Chips left: "
        + ", ".join(f"{_seat(s, me)} {m}" for s, m in enumerate(money))
        + "."
    )
    for rnd in ("Round1", "Round2"):
        acts = fields.get(rnd, "").split()
        if acts:
            who = _leduc_order(acts)
            said = "; ".join(f"{_seat(w, me)} {LEDUC_ACTIONS.get(a, a)}" for w, a in zip(who, acts))
            lines.append(f"Betting in round {rnd[-1]}: {said}.")
    return "\n".join(lines)


def _leduc_order(acts: list[str]) -> list[int]:
    """Who made each action of a round: player 1 opens each round, and seats alternate."""
    return [i % 2 for i in range(len(acts))]


def _liars_dice(game: GameDef, info: str, me: int) -> str:
    parts = info.split()
    if not parts or not parts[0].isdigit():
        return "The dice are being rolled."
    mine = ", ".join(parts[0])
    dice = int(game.engine.get_parameters().get("numdice", 1))
    lines = [f"Your dice: {mine}. Your opponent's {dice} die/dice are hidden from you."]
    bids = []
    for i, b in enumerate(parts[1:]):
        who = _seat(i % 2, me)
        if b == "Liar":
            bids.append(f"{who} called liar")
        else:
            q, f = b.split("-")
            bids.append(f"{who} bid {q} x {f}")
    lines.append("Bids so far: " + ("; ".join(bids) if bids else "none") + ".")
    return "\n".join(lines)


def _phantom(game: GameDef, info: str, me: int) -> str:
    """The board as this seat has found it, its tries, and under `obstype=reveal-numturns` the count
    of turns and their order (OpenSpiel writes the other seat's tries there as `1,?`)."""
    rows = info.rstrip("\n").split("\n")
    board = [r for r in rows if r and set(r) <= set(".xo")]
    rest = rows[len(board) :]
    turns = next((r.strip() for r in rest if r.strip().isdigit()), None)
    tries = [t.split(",", 1) for r in rest if "," in r for t in r.split()]
    mine = [cell for seat, cell in tries if seat == str(me)]
    mark = "xo"[me]
    lines = [
        f"Your view of the board (you are {mark}; '.' is a cell you have not found taken):",
        *board,
        f"Your moves so far (cell numbers 0-8, row by row): {' '.join(mine) or 'none'}.",
    ]
    if turns is not None:
        order = " ".join(cell if seat == str(me) else "?" for seat, cell in tries)
        lines.append(
            f"Turns so far, both players' tries counted: {turns}; in order (? is a try of your "
            f"opponent's, unseen): {order or 'none'}."
        )
    return "\n".join(lines)


PLAIN_VIEWS: dict[str, Callable[[GameDef, str, int], str]] = {
    "kuhn_poker": _kuhn,
    "leduc_poker": _leduc,
    "liars_dice": _liars_dice,
    "phantom_ttt": _phantom,
}


# -- rules ------------------------------------------------------------------------------------

HIDDEN = (
    "You see only your own information: what you hold and what every player has done in the open; "
    "never the other player's cards, dice or hidden moves."
)


def _kuhn_rules(game: GameDef) -> str:
    return (
        "We are playing Kuhn poker, a two-player poker game with a deck of three cards: Jack, Queen "
        "and King (King highest). Each player antes 1 chip and is dealt one card face down; the "
        "third card is never seen. Player 1 acts first and may pass (check) or bet 1 chip. If "
        "Player 1 passes, Player 2 may pass (showdown for the pot of 2) or bet 1; after a bet the "
        "other player may pass (fold: the bettor wins the pot) or bet (call: showdown). At a "
        "showdown the higher card wins the pot. Your payoff is the chips you win or lose."
    )


def _leduc_rules(game: GameDef) -> str:
    return (
        "We are playing Leduc poker, two-player poker with a deck of six cards: two Jacks, two "
        "Queens and two Kings. Each player antes 1 chip and gets one private card. There are two "
        "betting rounds; in each, players may fold, call (or check) and raise, at most two raises "
        "per round; a raise is 2 chips in the first round and 4 in the second. After the first "
        "round one public card is dealt face up. At the showdown a player whose private card pairs "
        "the public card wins; otherwise the higher private card wins; equal ranks split the pot. "
        "A player who folds loses what they have put in. Your payoff is the chips you win or lose."
    )


def _liars_dice_rules(game: GameDef) -> str:
    p = game.engine.get_parameters()
    dice, sides = p.get("numdice", 1), p.get("dice_sides", 6)
    return (
        f"We are playing Liar's dice. Each player rolls {dice} die/dice with {sides} sides and sees "
        "only their own. Players take turns bidding on the dice of both players together: a bid "
        "'q-f' claims that at least q dice show face f, where the highest face "
        f"({sides}) is wild and counts as every face. Each bid must be higher than the last (the "
        "legal bids listed are exactly those allowed). Instead of bidding you may call 'Liar' on "
        "the last bid: the dice are revealed; if the bid holds, the caller loses, otherwise the "
        "bidder loses. The winner scores +1 and the loser -1."
    )


def _phantom_rules(game: GameDef) -> str:
    return (
        "We are playing phantom tic-tac-toe: tic-tac-toe on a 3x3 board (cells named x(row,col) "
        "or o(row,col) from 0) where you cannot see your opponent's marks. On your turn you try to "
        "put your mark on a cell; if the cell is free the mark is placed and your turn ends; if "
        "the opponent already holds it, you now see their mark there and must try again. Three "
        "marks of one player in a row, column or diagonal win; a full board is a draw."
    )


WRITTEN: dict[str, Callable[[GameDef], str]] = {
    "kuhn_poker": _kuhn_rules,
    "leduc_poker": _leduc_rules,
    "liars_dice": _liars_dice_rules,
    "phantom_ttt": _phantom_rules,
}


class Hidden(Generic):
    """The mover's information state, rendered plainly; OpenSpiel's labels for the moves."""

    name = "standard"
    position_labels = True

    def rules(self) -> str:
        written = WRITTEN.get(self.game.openspiel_name)
        text = f"{written(self.game)} {MOVES}" if written is not None else rules_text(self.game)
        return f"{text} {HIDDEN}"

    def view(self, state: pyspiel.State, seat: int) -> str:
        """What `seat` knows, built from its information string alone."""
        info = information(state, seat)
        plain = PLAIN_VIEWS.get(self.game.openspiel_name)
        if plain is not None:
            return plain(self.game, info, seat)
        return f"What you know (OpenSpiel's information state for {self.seat_name(seat)}):\n{info.rstrip()}"

    def board(self, state: pyspiel.State) -> str:
        mover = state.current_player()
        return self.view(state, int(mover)) if mover >= 0 else ""

    def render_state(self, state: pyspiel.State) -> str:
        if state.is_chance_node():
            return "A chance move (a deal or a roll) comes next."
        if state.is_terminal():
            return self.render_end(state)
        return self.render_view(state, int(state.current_player()))

    def render_view(self, state: pyspiel.State, seat: int) -> str:
        """What `seat` may know; with the legal moves when it is to move."""
        if state.is_terminal():
            return f"{self.view(state, seat)}\n{self.render_end(state)}"
        lines = [self.view(state, seat)]
        if state.current_player() == seat:
            lines.append(LEGAL_LINE + ", ".join(self.legal_labels(state)))
            lines.append(f"You are {self.seat_name(seat)}; it is your move.")
        return "\n".join(lines)

    def render_end(self, state: pyspiel.State) -> str:
        returns = ", ".join(f"{self.seat_name(s)} {r:+g}" for s, r in enumerate(state.returns()))
        return f"Game over. {self.describe_outcome(state)} Payoffs: {returns}."

    def render_whole(self, state: pyspiel.State) -> str | None:
        """OpenSpiel's whole state, then what each seat knows: for a replay's reader only."""
        seats = range(state.get_game().num_players())
        known = [f"{self.seat_name(s)} knows:\n{self.view(state, s)}" for s in seats]
        return "\n\n".join([f"The whole state (OpenSpiel): {str(state).rstrip()}", *known])

    def action_label(self, state: pyspiel.State, action: int) -> str:
        return str(
            state.action_to_string(
                state.current_player() if state.is_chance_node() else self.observer(state), action
            )
        )

    def seen_label(self, state: pyspiel.State, action: int, seat: int) -> str | None:
        """The move's label where `seat` can tell it from every other move possible here (its own
        moves, a public bet, its own card); None where it cannot (another seat's card, a hidden mark).
        A move that was the only one possible is not told apart from anything: where the seat
        cannot see the move, it cannot know that the mover had one choice left (a phantom game's
        last free cell), so naming it would say where the hidden mark went."""
        if state.current_player() == seat:
            return self.action_label(state, action)
        moves = [o for o, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        seen = [information(state.child(a), seat) for a in moves]
        mine = information(state.child(action), seat)
        return self.action_label(state, action) if len(seen) > 1 and seen.count(mine) == 1 else None


def _check_rbc(game: GameDef) -> None:
    """The sensed window fits on the board: OpenSpiel takes any `sense_size` and, past the board,
    counts (board - size + 1)^2 senses anyway, whose labels are read from memory beyond the board
    (`rbc:sense_size=100` raised UnicodeDecodeError mid-game; 9 ended the game before it began)."""
    p = game.parameters
    board, size = int(str(p.get("board_size", 8))), int(str(p.get("sense_size", 3)))
    if not 1 <= size <= board:
        raise UserError(
            f"game '{game.spec}': sense_size must be from 1 to the board's size ({board}), the side of "
            f"the square of cells one sense reveals (got {size}); parameters: {game.parameters_text()}"
        )


# What OpenSpiel accepts but cannot play, checked when a game is named with parameters.
CHECKS: dict[str, Callable[[GameDef], None]] = {"rbc": _check_rbc}


def game_def(gt: pyspiel.GameType) -> GameDef:
    """A registry entry for one imperfect-information OpenSpiel game."""
    spec = dict(gt.parameter_specification)
    fixed: dict[str, object] = {k: v for k, v in PLAIN.items() if k in spec}
    chance = gt.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC
    game = GameDef(
        name=gt.short_name,
        title=gt.long_name,
        openspiel_name=gt.short_name,
        openspiel_params=fixed,
        summary=f"OpenSpiel '{gt.short_name}' (hidden information{', chance moves' if chance else ''})",
        aliases=tuple(
            dict.fromkeys([*ALIASES.get(gt.short_name, ()), gt.long_name, gt.short_name.replace("_", " ")])
        ),
        fixed_params=frozenset(fixed),
        oracle_missing="no equilibrium oracle is attached to this hidden-information game yet",
        not_for_text=NOT_FOR_TEXT.get(gt.short_name),
        check_params=CHECKS.get(gt.short_name),
    )
    game.add_formulation(Hidden)
    return game


def register_every_game() -> None:
    """Register each imperfect-information OpenSpiel game of the class not registered already."""
    for gt in playable_types():
        if gt.short_name not in GAMES:
            register_game(game_def(gt))
