"""The site's section for games graded by an engine (chess and its variants): each matchup's ACPL,
accuracy, best-move rate and judged moves, read from analysis/chess.py's rows (lichess's figures),
so the site shows what `plylab report --table chess` prints."""

from __future__ import annotations

from ..analysis.backgammon import BackgammonRow, backgammon_table
from ..analysis.chess import NAGS, ChessRow
from ..analysis.results import Mean
from ..analysis.stats import Estimate, estimate_text
from ..players.canonical import printed_run_name
from .page import Cell, Grid, Section

NOTE = (
    "From the player's side, the engine's evaluations read as lichess reads them "
    "(https://lichess.org/page/accuracy): ACPL (average centipawn loss) and accuracy per game, their "
    "mean with a 95% Student-t interval over games; best move and each judgement per move with a 95% "
    "Wilson interval; expected-score loss: best minus played on the graded scale, per game."
)


PLURALS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def _mean(e: Mean, digits: int) -> Cell:
    if e.mean is None:
        return Cell("–", sort=None, cls="num")
    return Cell(estimate_text(e.mean, e.low, e.high, e.n, f"{{:.{digits}f}}".format), sort=e.mean, cls="num")


def _rate(e: Estimate) -> Cell:
    if e.rate is None:
        return Cell("–", sort=None, cls="num")
    return Cell(estimate_text(e.rate, e.low, e.high, e.n, "{:.3f}".format), sort=e.rate, cls="num")


def grid(rows: list[ChessRow], title: str = "Graded by the engine") -> Grid:
    """One line per matchup of an engine-graded game; the engine and the first blunder in a detail row."""
    runs = len({r.run for r in rows}) > 1
    header = [
        *(["run"] if runs else []),
        "game",
        "formulation",
        "player",
        "opponent",
        "games",
        "ACPL [95% t]",
        "accuracy [95% t]",
        "best move [95% Wilson]",
        *(PLURALS[name] for name in NAGS),
    ]
    body = [
        [
            *([Cell(printed_run_name(r.run), cls="key")] if runs else []),
            Cell(r.game),
            Cell(r.formulation),
            Cell(r.player, cls="key"),
            Cell(r.opponent, cls="key"),
            Cell(str(r.games), sort=r.games, cls="num"),
            _mean(r.acpl, 1),
            _mean(r.accuracy, 1),
            _rate(r.best_move.estimate),
            *(Cell(str(r.judged[name].count), sort=r.judged[name].count, cls="num") for name in NAGS),
        ]
        for r in rows
    ]
    details = [
        f"the player's moves: {r.moves} · expected-score loss per game: {_mean(r.expected_score_loss, 3).text} · "
        f"engine: {', '.join(r.engine)} · first blunder (move no.): "
        + ("–" if r.first_blunder.mean is None else f"{r.first_blunder.mean:.1f}")
        + f" in {r.blundered}/{r.games} games · per-move rates: "
        + ", ".join(f"{name} {r.judged[name].estimate.rate or 0:.3f}" for name in NAGS)
        for r in rows
    ]
    return Grid("engine-table", title, header, body, details=details)


def backgammon_grid(rows: list[BackgammonRow]) -> Grid:
    """Backgammon's checker play as gnubg reports it: the cells and notes `plylab report` prints
    (analysis/backgammon.py), so the site and the terminal say the same numbers."""
    table = backgammon_table(rows)
    first = 0 if len({r.run for r in rows}) > 1 else 1  # the run column only where runs differ
    cells = [
        [Cell(c, cls="num" if i >= 5 else None) for i, c in enumerate(row)][first:] for row in table.rows
    ]
    title = table.title or "Backgammon"
    return Grid("backgammon-table", title, list(table.columns)[first:], cells, note=" · ".join(table.notes))


def section(rows: list[ChessRow], backgammon: list[BackgammonRow] | None = None) -> Section | None:
    """The engine-graded matchups: chess by lichess's figures, backgammon by gnubg's; None when no
    matchup was graded by an engine."""
    tables = ([grid(rows)] if rows else []) + ([backgammon_grid(backgammon)] if backgammon else [])
    if not tables:
        return None
    return Section("engine", "Engine", NOTE if rows else "", tables=tables)
