"""plylab's chess figures are lichess's: recomputed here from an exported PGN of real games.

Two games of random against Stockfish, each ending in checkmate, are played and graded by the
harness and exported as PGN. Every figure is then recomputed from the PGN alone, with lichess's
formulas written out again below (read from lila's AccuracyPercent.scala, AccuracyCP.scala,
Advice.scala, fishnet's AnalysisBuilder.scala and scalachess's eval.scala; nothing is imported from
plylab's analysis), and with the engine's best move in each position found by a search of its own
(the same engine, limit and settings). Compared: each [%eval] with the search of its own position,
ACPL and accuracy per game and side, each move's judgement (the PGN's NAGs), and the report's
per-matchup ACPL, accuracy, judgement counts and best-move rate.
"""

from __future__ import annotations

import io
import json
import math
import statistics

import chess
import chess.engine
import chess.pgn
import pytest

from plylab.oracles.engine import engine_path
from tests.support.engines import needs_stockfish

NODES = 2000  # the grading limit of the run below
GLYPH = {6: "inaccuracy", 2: "mistake", 4: "blunder"}  # PGN's ?!, ?, ??


# ---- lichess, written out independently ------------------------------------------------------


def chances(cp: float) -> float:
    """scalachess WinPercent.winningChances: no cap on cp, the result within [-1, 1]."""
    return min(1.0, max(-1.0, 2 / (1 + math.exp(-0.00368208 * cp)) - 1))


def as_cp(score: chess.engine.Score) -> int:
    """lila's Eval.forceAsCp followed by Cp.ceiled: a mate is the +-1000 cap."""
    cp = score.score(mate_score=10**6)
    assert cp is not None
    return min(1000, max(-1000, cp))


def win(cp: int) -> float:
    return 50 + 50 * chances(min(1000, max(-1000, cp)))


def move_acc(before: float, after: float) -> float:
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) - 3.166924740191411
    return min(100.0, max(0.0, raw + 1))


START = chess.engine.Cp(15)  # lila's evals.initial


def lichess_acpl(evals: list[chess.engine.Score], white: bool) -> int | None:
    """AccuracyCP.diffsList + mean: evals are White's view after each ply (the mating ply dropped)."""
    seq = ([START] + evals) if white else evals
    losses = []
    for k in range(0, len(seq) - 1, 2):
        rise = as_cp(seq[k + 1]) - as_cp(seq[k])
        losses.append(max(0, -rise if white else rise))
    return math.floor(statistics.fmean(losses) + 0.5) if losses else None


def lichess_accuracy(evals: list[chess.engine.Score], white: bool) -> float | None:
    """AccuracyPercent.gameAccuracy with scalalib's Maths (population sd, harmonic mean floored at 1)."""
    wins = [win(15)] + [win(as_cp(e)) for e in evals]
    size = min(8, max(2, len(evals) // 10))
    windows = [wins[:size] for _ in range(min(size, len(wins)) - 2)]
    windows += [wins[i : i + size] for i in range(0, len(wins) - size + 1)] if len(wins) >= size else [wins]
    weights = [min(12.0, max(0.5, statistics.pstdev(w))) for w in windows]
    mine = []
    for i in range(len(wins) - 1):
        if (i % 2 == 0) != white:
            continue
        a = move_acc(wins[i], wins[i + 1]) if white else move_acc(100 - wins[i], 100 - wins[i + 1])
        mine.append((a, weights[i]))
    if not mine:
        return None
    weighted = sum(a * w for a, w in mine) / sum(w for _, w in mine)
    harmonic = len(mine) / sum(1 / max(1.0, a) for a, _ in mine)
    return (weighted + harmonic) / 2


def lichess_judgement(prev: chess.engine.Score, now: chess.engine.Score, white: bool) -> str | None:
    """Advice.scala (CpAdvice, else MateAdvice) for a move with a variation, scores from White's side."""
    pov_prev, pov_now = (prev, now) if white else (-prev, -now)
    if not prev.is_mate() and not now.is_mate():
        drop = chances(pov_prev.score()) - chances(pov_now.score())  # type: ignore[arg-type]
        for least, name in ((0.3, "blunder"), (0.2, "mistake"), (0.1, "inaccuracy")):
            if drop >= least:
                return name
        return None
    p_mate, n_mate = pov_prev.mate(), pov_now.mate()
    if p_mate is None and n_mate is not None and n_mate < 0:  # checkmate is now unavoidable
        cp = pov_prev.score()
        assert cp is not None
        return "inaccuracy" if cp < -999 else "mistake" if cp < -700 else "blunder"
    if p_mate is not None and p_mate > 0 and (n_mate is None or n_mate < 0):  # lost forced checkmate
        cp = pov_now.score() if n_mate is None else 0
        assert cp is not None
        return "inaccuracy" if cp > 999 else "mistake" if cp > 700 else "blunder"
    return None


# ---- the games --------------------------------------------------------------------------------


def _search(engine: chess.engine.SimpleEngine, board: chess.Board) -> chess.engine.InfoDict:
    """The engine's verdict on a position by its FEN, as plylab searches it: one thread, hash cleared."""
    return engine.analyse(chess.Board(board.fen()), chess.engine.Limit(nodes=NODES), game=object())


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    from plylab.cli import main

    tmp = tmp_path_factory.mktemp("lichess")
    store, pgn = tmp / "s.sqlite", tmp / "games.pgn"
    code = main(["run", "--game", "chess", "--player", "random", "--opponent", "stockfish:nodes=300",
                 "--games", "2", "--score", f"nodes={NODES}", "--store", str(store), "--quiet"])  # fmt: skip
    assert code == 0
    assert main(["export", str(pgn), "--store", str(store), "--format", "pgn"]) == 0
    return store, pgn.read_text()


def _recompute(pgn_text: str) -> list[dict]:
    path = engine_path("stockfish")
    assert path is not None
    engine = chess.engine.SimpleEngine.popen_uci(path)
    engine.configure({"Threads": 1, "Hash": 16})
    out = []
    try:
        handle = io.StringIO(pgn_text)
        while (game := chess.pgn.read_game(handle)) is not None:
            nodes = list(game.mainline())
            assert game.end().board().is_checkmate()  # the games end in mate
            evals, variation, nags, searched = [], [], [], []
            board = game.board()
            for node in nodes:
                before = _search(engine, board)
                variation.append(before["pv"][0] != node.move)  # not the engine's best move
                board.push(node.move)
                nags.append({GLYPH[n] for n in node.nags})
                if board.is_checkmate():  # fishnet drops a checkmate's evaluation: no Info
                    assert node.eval() is None
                    break
                assert node.eval() is not None
                evals.append(node.eval().white())
                searched.append(_search(engine, board)["score"].white())
            judged = []
            prev = START
            for ply, now in enumerate(evals):
                judged.append(lichess_judgement(prev, now, ply % 2 == 0) if variation[ply] else None)
                prev = now
            out.append(
                {
                    "headers": game.headers,
                    "evals": evals,
                    "searched": searched,
                    "variation": variation,
                    "judged": judged,
                    "nags": nags,
                    "acpl": {w: lichess_acpl(evals, w) for w in (True, False)},
                    "accuracy": {w: lichess_accuracy(evals, w) for w in (True, False)},
                }
            )
    finally:
        engine.quit()
    return out


@pytest.mark.slow
@needs_stockfish
def test_every_figure_is_lichess_s_recomputed_from_the_exported_pgn(played, cli) -> None:
    store, pgn_text = played
    games = _recompute(pgn_text)
    assert len(games) == 2
    mate_rules = 0
    for g in games:
        # every [%eval] is the search of its own position (an engine-best move's too)
        assert g["evals"] == g["searched"]
        # each move's judgement, as the PGN's NAG
        for ply, verdict in enumerate(g["judged"]):
            assert g["nags"][ply] == ({verdict} if verdict else set()), f"ply {ply}"
            by_mate = g["evals"][ply].is_mate() or (ply > 0 and g["evals"][ply - 1].is_mate())
            mate_rules += verdict is not None and by_mate
        assert all(not n for n in g["nags"][len(g["judged"]) :])  # the mating move: never judged

    from plylab.analysis.chess import game_figures
    from plylab.harness.store import Store

    s = Store(store, create=False)
    try:
        figures = game_figures(s)
    finally:
        s.close()
    for g, f in zip(games, figures, strict=True):
        for seat in (0, 1):
            white = seat == f.white_seat
            assert f.acpl(seat) == g["acpl"][white]
            assert f.accuracy(seat) == pytest.approx(g["accuracy"][white], abs=1e-9)
            counts = {n: 0 for n in GLYPH.values()}
            for ply, verdict in enumerate(g["judged"]):
                if verdict and (ply % 2 == 0) == white:
                    counts[verdict] += 1
            assert f.judged(seat) == counts
    assert mate_rules > 0  # lichess's mate rules were exercised, not only the winning-chance drops

    # the report's matchup row: the player's (random's) side over both games
    (row,) = json.loads(cli("report", "--store", str(store), "--table", "chess", "--format", "json").out)[
        "chess"
    ]
    mine = []
    for g, f in zip(games, figures, strict=True):
        white = f.player_seat == f.white_seat
        assert g["headers"]["White" if white else "Black"] == "random"
        plies = [p for p in range(len(g["variation"])) if (p % 2 == 0) == white]
        mine.append((white, g, plies))
    assert row["acpl"]["mean"] == pytest.approx(statistics.fmean(g["acpl"][w] for w, g, _ in mine))
    assert row["accuracy"]["mean"] == pytest.approx(statistics.fmean(g["accuracy"][w] for w, g, _ in mine))
    for name in GLYPH.values():
        expected = sum(
            1 for w, g, _ in mine for p, v in enumerate(g["judged"]) if v == name and (p % 2 == 0) == w
        )
        assert row[name]["count"] == expected
    best = sum(not g["variation"][p] for _, g, plies in mine for p in plies)
    # random, lost past the cap for much of each game, is not credited with best moves there: the rate is
    # the engine's best move only (the old figure, "lost nothing after the cap", gave random 0.63)
    assert row["lost_past_cap"] > 0 and row["best_move"]["rate"] < 0.2
    moves = sum(len(p) for _, _, p in mine)
    assert row["moves"] == moves and row["best_move"]["rate"] == pytest.approx(best / moves)


@needs_stockfish
def test_the_chess_table_names_run_and_formulation_in_every_format(played, cli) -> None:
    store, _ = played
    for fmt in ("table", "csv", "markdown", "latex"):
        out = cli("report", "--store", str(store), "--table", "chess", "--format", fmt)
        assert out.code == 0, out.err
        (line,) = [x for x in out.out.splitlines() if "random" in x]
        assert "chess.standard.random-vs-stockfish" in line.replace("\\_", "_") and "standard" in line, fmt
    csv = cli("report", "--store", str(store), "--table", "chess", "--format", "csv").out.splitlines()[0]
    assert csv.startswith("run,game,formulation,player,opponent,games,moves,ACPL")
    tex = cli("report", "--store", str(store), "--latex", str(store.parent / "tex"))
    assert tex.code == 0 and "chess.tex" in tex.out
    assert "ACPL" in (store.parent / "tex" / "chess.tex").read_text()
