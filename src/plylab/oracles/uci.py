"""OpenSpiel's chess family as a UCI engine sees it: the position as FEN, each move as UCI.

OpenSpiel writes a chess position as FEN (`str(state)`) and names moves in SAN; python-chess reads
both, so a position becomes a `chess.Board` (or a variant board) and every legal OpenSpiel action a
`chess.Move`. Where OpenSpiel's notation differs from the standard one it is translated here:
crazyhouse marks a promoted piece with its own letter (E, C, A, H for a promoted queen, rook,
bishop, knight; python-chess writes `Q~`), and where a translated SAN is ambiguous (a promoted and
an ordinary rook reaching one square) the move is found by the position it leads to.

`Mapping.exact` is True only when the two legal-move sets are the same: where OpenSpiel's rules and
the engine's differ in a position (OpenSpiel's antichess does not make an en-passant capture
compulsory) the position is not scored, never scored by the wrong rules. `tests/oracles/test_uci.py`
plays random games and compares both sides' legal moves at every ply.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import chess
    import pyspiel

# OpenSpiel game -> (python-chess board class name in chess / chess.variant, Fairy-Stockfish UCI_Variant).
FAMILY: dict[str, tuple[str, str]] = {
    "chess": ("Board", "chess"),
    "antichess": ("AntichessBoard", "antichess"),
    "crazyhouse": ("CrazyhouseBoard", "crazyhouse"),
}
# Games of the family whose OpenSpiel notation does not map to a UCI engine's, and why.
UNMAPPED: dict[str, str] = {
    "shogi": "no engine score: OpenSpiel's shogi position (SFEN) is not mapped to an engine",
    "xiangqi": "no engine score: OpenSpiel's xiangqi position is not written as FEN",
    "dark_chess": "no engine score: hidden information",
}
PROMOTED = {"E": "Q", "C": "R", "A": "B", "H": "N"}  # crazyhouse's promoted-piece letters
_PROMOTED_FEN = re.compile("[ECAHecah]")


def maps(game: str) -> bool:
    """True when the game's positions and moves map to a UCI engine's (chess, antichess, crazyhouse)."""
    return game in FAMILY


def fen_of(state: pyspiel.State) -> str:
    """OpenSpiel's FEN in the standard spelling (crazyhouse's promoted pieces as `Q~`)."""
    text = str(state)
    board, _, rest = text.partition(" ")
    return f"{_PROMOTED_FEN.sub(_promoted, board)} {rest}"


def _promoted(m: re.Match[str]) -> str:
    letter = PROMOTED[m.group().upper()]
    return (letter if m.group().isupper() else letter.lower()) + "~"


def board_class(game: str) -> type[chess.Board]:
    import chess
    import chess.variant

    name = FAMILY[game][0]
    return getattr(chess, name) if name == "Board" else getattr(chess.variant, name)  # type: ignore[no-any-return]


def board_of(game: str, state: pyspiel.State) -> chess.Board:
    """The position as python-chess holds it (no move stack: the FEN is the whole position)."""
    return board_class(game)(fen_of(state))


def san_of(label: str) -> str:
    """OpenSpiel's SAN in the standard spelling."""
    return PROMOTED.get(label[:1], label[:1]) + label[1:] if label else label


@dataclass(frozen=True)
class Mapping:
    """One position's legal moves both ways; `exact` when both sides agree on every legal move."""

    board: chess.Board
    to_move: dict[int, chess.Move]
    to_action: dict[str, int]  # UCI -> OpenSpiel action
    exact: bool

    def uci(self, action: int) -> str:
        return self.to_move[action].uci()


def mapping(game: str, state: pyspiel.State) -> Mapping:
    """Every legal OpenSpiel action of `state` as a python-chess move, and back."""

    board = board_of(game, state)
    mover = state.current_player()
    to_move: dict[int, chess.Move] = {}
    lan = _lan(game, state)
    for action in state.legal_actions():
        try:
            quick = lan(action) if lan is not None else None
            if quick is not None and board.is_legal(quick):
                to_move[action] = quick
                continue
            move = board.parse_san(san_of(state.action_to_string(mover, action)))
        except ValueError:  # ambiguous after translation, or not legal by python-chess's rules
            found = _by_position(game, state, action, board)
            if found is None:
                continue
            move = found
        to_move[action] = move
    to_action = {m.uci(): a for a, m in to_move.items()}
    exact = (
        len(to_move) == len(state.legal_actions())
        and len(to_action) == len(to_move)
        and set(to_move.values()) == set(board.legal_moves)
    )
    return Mapping(board, to_move, to_action, exact)


def _lan(game: str, state: pyspiel.State) -> Callable[[int], chess.Move] | None:
    """Chess: OpenSpiel's own move of an action in long algebraic notation (UCI), the fast way; a
    move it spells otherwise (castling as king-takes-rook) goes the SAN way."""
    if game != "chess":
        return None
    import chess
    import pyspiel

    board = state.board()
    return lambda action: chess.Move.from_uci(pyspiel.chess.action_to_move(action, board).to_lan())


def _by_position(game: str, state: pyspiel.State, action: int, board: chess.Board) -> chess.Move | None:
    """The python-chess move that reaches the position OpenSpiel's action reaches (EPD: no clocks)."""
    target = board_class(game)(fen_of(state.child(action))).epd()
    for move in board.legal_moves:
        board.push(move)
        try:
            if board.epd() == target:
                return move
        finally:
            board.pop()
    return None
