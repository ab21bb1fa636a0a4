"""A chess game's figures for the player, as the run page's game list shows them: ACPL, accuracy
and blunders, each read through analysis/chess.py (`graded_ply`, `LichessGame`: lichess's ACPL,
accuracy and judgements), so the list counts a game exactly as the chess table counts its matchup."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ..analysis.chess import GradedPly, LichessGame, graded_ply
from ..harness.store import Store
from ..oracles.graded import Grade
from ..oracles.uci import FAMILY


@dataclass(frozen=True)
class GameChess:
    """One game's engine figures for the player's side."""

    acpl: float | None
    accuracy: float | None
    blunders: int


def game_figures(store: Store, run_id: int) -> dict[int, GameChess]:
    """Per game of the run that an engine graded (chess and its variants): the player's figures.

    Streamed from the store a move at a time; what is held is each game's graded plies only while
    its game is read (the games come in order)."""
    out: dict[int, GameChess] = {}
    plies: dict[int, list[GradedPly]] = defaultdict(list)
    seats: dict[int, int] = {}

    def close(gid: int) -> None:
        seat = seats[gid]
        mine = [p for p in plies[gid] if p.seat == seat]
        if mine:
            game = LichessGame.of(plies[gid])
            white = mine[0].white
            blunders = sum(game.judgements.get(p.ply) == "blunder" for p in mine)
            out[gid] = GameChess(game.acpl(white), game.accuracy(white), blunders)
        del plies[gid]

    current: int | None = None
    for m in store.frame([run_id]).engine_moves(FAMILY):
        if m.game_id != current:
            if current is not None:
                close(current)
            current = m.game_id
            seats[current] = m.player_seat
        plies[current].append(graded_ply(m.ply, m.seat, Grade.from_json(m.grade)))
    if current is not None:
        close(current)
    return out
