"""Chess puzzles in lichess's public database format, as suite candidates.

The database is a CSV with the columns PuzzleId, FEN, Moves, Rating, RatingDeviation, Popularity,
NbPlays, Themes, GameUrl, OpeningTags. FEN is the position before the opponent's move; the first of
`Moves` (UCI) is that move, applied as lichess applies it, and the position after it is the puzzle
put to the solver, whose expected answer is the second move. plylab keeps the puzzle's id, rating,
themes and lichess's answer with the position, and grades every legal move itself.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError
from ..games import GameDef
from ..oracles.uci import mapping
from .file import read_text_file

REQUIRED = ("PuzzleId", "FEN", "Moves")


@dataclass(frozen=True)
class Puzzle:
    """One puzzle, its first move already an OpenSpiel action."""

    id: str
    fen: str
    first: int
    answer: str  # lichess's expected reply (UCI), the puzzle's second move
    rating: int | None
    themes: tuple[str, ...]


def read_puzzles(path: Path, game: GameDef) -> list[Puzzle]:
    """Every puzzle of the file, in its order; UserError in one line naming the row that is wrong."""
    if game.name != "chess":
        raise UserError(f"lichess puzzles are chess positions; give --game chess (not '{game.spec}')")
    text = read_text_file(path, "puzzle file")  # a FIFO or a directory: one line, never a blocked read
    reader = csv.DictReader(text.splitlines())
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise UserError(
            f"puzzle file {path} lacks the column(s) {', '.join(missing)}; lichess's format: "
            "PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags"
        )
    out = []
    for number, row in enumerate(reader, start=2):
        pid, fen, moves = ((row.get(c) or "").strip() for c in REQUIRED)
        ucis = moves.split()
        if len(ucis) < 2:
            raise UserError(
                f"puzzle file {path} line {number} ({pid}): Moves needs the opponent's move and the answer"
            )
        try:
            state = game.engine.new_initial_state(fen)
        except Exception:  # noqa: BLE001 - OpenSpiel's parser says only that it failed
            raise UserError(f"puzzle file {path} line {number} ({pid}): '{fen}' is not a FEN") from None
        first = mapping(game.name, state).to_action.get(ucis[0])
        if first is None:
            raise UserError(
                f"puzzle file {path} line {number} ({pid}): '{ucis[0]}' is not a legal move in its FEN"
            )
        rating = (row.get("Rating") or "").strip()
        out.append(
            Puzzle(
                pid,
                fen,
                first,
                ucis[1],
                int(rating) if rating.isdigit() else None,
                tuple((row.get("Themes") or "").split()),
            )
        )
    if not out:
        raise UserError(f"puzzle file {path} holds no puzzles")
    return out
