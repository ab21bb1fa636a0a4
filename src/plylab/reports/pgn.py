"""Chess games as PGN, the file every chess tool opens, with the engine's evaluation of every move.

One PGN game per stored game of the chess family (chess, antichess, crazyhouse; `[Variant]` names a
variant): the players as White and Black, the result, `[%eval ...]` after each graded move (the
engine's search of the position after that move, from White's side, as PGN has it: pawns or `#N`;
none after a checkmate and 0.00 after a drawn finish, as lichess has its evaluations), and lichess's
judgements as NAGs: ?! inaccuracy, ? mistake, ?? blunder, by lichess's rules (analysis/chess.py).
python-chess writes it, so any GUI or site import reads it; a forfeit is the result with
`[Termination]` saying why.
Tag values (a run's name is the user's text) are written as the standard's strings: a quote or a
backslash escaped, a control character a space, so no name can close its tag or forge a game.
"""

from __future__ import annotations

import json
import unicodedata
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..analysis.chess import Info, LichessGame, graded_ply
from ..errors import UserError
from ..oracles.graded import Grade
from ..oracles.uci import FAMILY, mapping, maps
from ..players.canonical import canonical_spec, printed_run_name

if TYPE_CHECKING:
    import chess.engine
    import chess.pgn

    from ..harness.rows import GameRow, MoveRow
    from ..harness.store import Store

VARIANTS = {"antichess": "Antichess", "crazyhouse": "Crazyhouse"}


def _result(g: GameRow, white: int) -> str:
    returns = json.loads(g.returns)
    if returns[0] == returns[1]:
        return "1/2-1/2"
    return "1-0" if returns[white] > returns[1 - white] else "0-1"


def _eval_after(info: Info | None) -> chess.engine.PovScore | None:
    """lichess's evaluation after a move, from White's side (None after a checkmate)."""
    import chess
    import chess.engine

    if info is None or (info.cp is None and info.mate is None):
        return None
    score: chess.engine.Score = (
        chess.engine.Mate(info.mate) if info.mate is not None else chess.engine.Cp(info.cp or 0)
    )
    return chess.engine.PovScore(score, chess.WHITE)


def game_pgn(g: GameRow, moves: list[MoveRow], run: str) -> chess.pgn.Game:
    """One stored game as a python-chess PGN game."""
    import chess
    import chess.pgn

    from ..games import get_game

    engine = get_game(g.game).engine
    white_seat = engine.new_initial_state().current_player()  # OpenSpiel's chess: seat 1 is White
    pgn = chess.pgn.Game()
    specs = [canonical_spec(g.player), canonical_spec(g.opponent)]
    by_seat = specs if g.player_seat == 0 else specs[::-1]
    white, black = by_seat[white_seat], by_seat[1 - white_seat]
    pgn.headers.update(
        Event=run,
        Site="plylab",
        Date=datetime.fromtimestamp(g.started).strftime("%Y.%m.%d") if g.started else "????.??.??",
        Round=str(g.idx + 1),
        White=white,
        Black=black,
        Result=_result(g, white_seat),
    )
    if g.game in VARIANTS:
        pgn.headers["Variant"] = VARIANTS[g.game]
    sources = set()
    grades = {m.ply: Grade.from_json(m.grade) for m in moves if m.grade is not None}
    engine_graded = {ply: g for ply, g in grades.items() if "played_eval" in g.detail}
    seats = {m.ply: m.seat for m in moves}
    lichess = LichessGame.of([graded_ply(ply, seats[ply], g) for ply, g in engine_graded.items()])
    infos = {i.ply: i for i in lichess.infos}
    node: chess.pgn.GameNode = pgn
    for m in moves:
        if m.action is None:
            continue
        state = engine.deserialize_state(m.state)
        if node is pgn:
            pgn.setup(mapping(g.game, state).board)  # the variant's own board, from OpenSpiel's start
        move = mapping(g.game, state).to_move.get(m.action)
        if move is None:
            break  # cannot happen for a mapped game: the rest would not replay
        node = node.add_variation(move)
        if m.ply in engine_graded:
            sources.add(engine_graded[m.ply].source)
            score = _eval_after(infos.get(m.ply))
            if score is not None:
                node.set_eval(score)
            verdict = lichess.judgements.get(m.ply)
            if verdict is not None:
                node.nags.add(NAG[verdict])
    if g.forfeit_by is not None:
        loser = "White" if g.forfeit_by == white_seat else "Black"
        pgn.headers["Termination"] = f"{loser} forfeited ({g.failure_kind or 'failure'})"
    if sources:
        pgn.headers["Annotator"] = ", ".join(sorted(sources))
    return pgn


NAG = {"inaccuracy": 6, "mistake": 2, "blunder": 4}  # PGN's ?!, ?, ?? (chess.pgn.NAG_*)


def tag_value(text: str) -> str:
    """`text` as a PGN tag's string (the standard's 7 and 8.1): a backslash and a quote escaped with
    a backslash; each control character or line break (which would end the tag line and let the
    rest forge tags or a game) a space. python-chess 1.11 writes a tag's value as it is given."""
    printable = "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in text)
    return printable.replace("\\", "\\\\").replace('"', '\\"')


@cache
def _exporter() -> type[chess.pgn.StringExporter]:
    """python-chess's own PGN writer, each tag value written by `tag_value`."""
    import chess.pgn

    class Escaped(chess.pgn.StringExporter):
        def visit_header(self, tagname: str, tagvalue: str) -> None:
            super().visit_header(tagname, tag_value(tagvalue))

    return Escaped


def pgn_text(game: chess.pgn.Game) -> str:
    """One game as PGN text (its movetext on one line, as `str(game)` writes it)."""
    return game.accept(_exporter()(columns=None))


def export_pgn(store_path: Path, out: Path, run: str | None) -> int:
    """Write every chess-family game of the store (or of `run`) to `out`; return how many."""
    from ..harness.store import Store, reading

    if not out.parent.is_dir():
        raise UserError(f"cannot write '{out}': directory '{out.parent}' does not exist; create it first")
    s: Store = Store(store_path, create=False)
    count = 0
    try:
        with reading(store_path):
            runs = {r.id: printed_run_name(r.name) for r in s.runs(run)}  # as every table prints it
            games = [g for g in s.games(runs) if maps(g.game)]
            if not games:
                games_of = ", ".join(FAMILY)
                raise UserError(
                    f"no games of the chess family ({games_of}) in {store_path}; nothing to export"
                )
            with out.open("w", encoding="utf-8") as fh:
                for start in range(0, len(games), 200):
                    chunk = games[start : start + 200]
                    moves = s.moves_for_games([g.id for g in chunk])
                    for g in chunk:
                        print(pgn_text(game_pgn(g, moves[g.id], runs[g.run_id])), file=fh, end="\n\n")
                        count += 1
    except OSError as exc:
        raise UserError(f"cannot write '{out}': {exc.strerror or exc}; the store was only read") from None
    finally:
        s.close()
    return count
