"""The site's Suites section: each suite run's tables (per player, per pair) and a page per suite
drawing its positions, their legal moves coloured by value, and every player's answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from markupsafe import Markup

from ..analysis.batch import noted
from ..errors import UserError
from ..games import boards, get_game
from ..games.boards.base import VALUE_COLOURS, Marks
from ..render.table import Table
from ..suites.answer import Answer
from ..suites.file import Position, Suite
from ..suites.report import (
    SuiteResults,
    deductions_table,
    pairs_table,
    player_label,
    players_table,
    read_results,
)
from .page import Cell, Grid, PageWriter, Section

DRAWN = 100  # positions drawn per suite page


def _grid(table: Table, gid: str) -> Grid:
    return Grid(
        gid,
        table.title or "",
        list(table.columns),
        [[Cell(c) for c in r] for r in table.rows],
        "; ".join(table.notes),
    )


def _players(results: SuiteResults) -> list[str]:
    """Every player spec that answered a suite (the batch note reads `batch=on` from them)."""
    return [a.player for _, answers in results.runs for a in answers]


def _colour(value: float, best: float, worst: float, tolerance: float) -> str:
    return "win" if best - value <= tolerance else "loss" if value - worst <= tolerance else "draw"


def _snapshot(game_name: str, pos: Position, answers: list[Answer]) -> dict[str, object]:
    """A Clue deduction snapshot: the seat's own view, the facts it entails, each player's verdict."""
    from ..clue.prompts import render_view, seat_label
    from ..suites.deduction import clue_game

    state: Any = pos.state(clue_game(game_name))
    deck, n = state.deck, state.n
    return {
        "index": pos.index,
        "mover": seat_label(pos.mover),
        "ply": pos.ply,
        "facts": len(pos.entailed or ()),
        "svg": None,
        "view": render_view(state.view(pos.mover)),
        "moves_title": "Entailed",
        "moves": [
            {
                "label": f"{deck.name(c)}: {'envelope' if h == n else seat_label(h)}",
                "value": "",
                "colour": VALUE_COLOURS["win"],
            }
            for c, h in pos.entailed or ()
        ],
        "answers": [
            {
                "player": player_label(a),
                "label": f"failure ({a.failure})"
                if a.failure
                else f"{(a.deduction or {}).get('claims', 0)} claims",
                "verdict": ", ".join(
                    f"{k} {(a.deduction or {}).get(k, 0)}" for k in ("correct", "incorrect", "missed")
                ),
            }
            for a in answers
        ],
    }


def _position(game_name: str, formulation: str, pos: Position, answers: list[Answer]) -> dict[str, object]:
    if pos.entailed is not None:
        return _snapshot(game_name, pos, answers)
    game = get_game(game_name)
    state = pos.state(game)
    grade = pos.grade()
    worst = min(grade.expected.values())
    classes = {m.action: _colour(m.value, grade.best, worst, grade.tolerance) for m in pos.moves}
    svg = boards.draw(game_name, state, Marks(values=classes))
    view = game.formulation(formulation).render_state(state)
    return {
        "index": pos.index,
        "mover": game.formulation(formulation).seat_name(pos.mover),
        "ply": pos.ply,
        "legal": pos.features["legal"],
        "optimal": pos.features["optimal"],
        "svg": Markup(svg) if svg else None,
        "view": view,
        "moves": [
            {"label": m.label, "value": f"{m.value:.3g}", "colour": VALUE_COLOURS[classes[m.action]]}
            for m in pos.moves
        ],
        "answers": [
            {
                "player": player_label(a),
                "label": a.label or f"failure ({a.failure})",
                "verdict": "optimal" if a.optimal else f"loss {a.loss:.3g}",
            }
            for a in answers
        ],
    }


def _suite_of(name: str, digest: str, store_path: Path) -> Suite | None:
    """The suite file a run answered, as it was: `suites/NAME.jsonl` from the working directory (where
    `suite run` read it) or beside the store (a report made from another directory); None where
    neither holds it unchanged (another machine): the tables still show."""
    from ..suites.file import SUITES_DIR, read_suite

    for where in (name, str(store_path.resolve().parent / SUITES_DIR / f"{name}.jsonl")):
        try:
            suite, _ = read_suite(where)
        except UserError:
            continue
        if suite.hash == digest:
            return suite
    return None


def section(writer: PageWriter, store_path: Path, run: str | None) -> Section | None:
    """The store's suite runs, or None when it has none (or a single run of games is asked for)."""
    if run is not None:
        return None
    try:
        results: SuiteResults = read_results(store_path)
    except UserError:  # no suite run in this store
        return None
    listed = []
    for suite_run, answers in results.runs:
        page = f"suites/{suite_run.id}.html"
        suite = _suite_of(suite_run.suite, suite_run.hash, store_path)
        if suite is not None:
            by_position: dict[int, list[Answer]] = {}
            for a in answers:
                by_position.setdefault(a.position, []).append(a)
            shown = [
                _position(suite.game, suite.formulation, p, by_position.get(p.index, []))
                for p in suite.positions[:DRAWN]
            ]
            truth = suite.truth
            writer.page(
                "suite.html",
                page,
                "../",
                suite={
                    "name": suite.name,
                    "game": suite.game,
                    "hash": suite.hash,
                    "source": suite.sampler,
                    "oracle": f"{truth.get('name')} ({'; '.join(truth.get('sources') or [])})",
                    "positions": shown,
                    "more": max(0, len(suite.positions) - DRAWN),
                },
            )
            link: Cell = Cell(suite_run.suite, href=page)
        else:
            link = Cell(suite_run.suite)
        players = len({player_label(a) for a in answers})
        listed.append(
            [
                link,
                Cell(suite_run.game),
                Cell(suite_run.hash[:19]),
                Cell(str(len(answers))),
                Cell(str(players)),
            ]
        )
    suites = Grid(
        "suites-list",
        "Suites (open one to see its positions)",
        ["suite", "game", "hash", "answers", "players"],
        listed,
    )
    return Section(
        "suites",
        "Suites",
        "Fixed positions answered once by each player, against the suite's stored truth; pairs compared "
        "on the same positions (McNemar for rates, a paired bootstrap for loss).",
        tables=[  # a table with no rows (Clue deductions of a game's suite, pairs of one player): no heading
            grid
            for grid in (
                suites,
                _grid(noted(players_table(results), _players(results)), "suite-players"),
                _grid(deductions_table(results), "suite-deductions"),
                _grid(pairs_table(results), "suite-pairs"),
            )
            if grid.rows
        ],
    )
