"""The site's Suites section: each suite run's tables (per player, per pair) and a page per suite
drawing its positions, their legal moves coloured by value, and every player's answer."""

from __future__ import annotations

from pathlib import Path

from ..errors import UserError
from ..render.table import Table
from ..suites.answer import Answer
from ..suites.file import Suite
from ..suites.kinds import kind_of, kinds
from ..suites.report import SuiteResults, pairs_table, player_label, read_results
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
            kind = kind_of(suite.game)
            shown = [kind.page(suite, p, by_position.get(p.index, [])) for p in suite.positions[:DRAWN]]
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
                *(_grid(t, f"suite-{name}") for kind in kinds() for name, t in kind.tables(results).items()),
                _grid(pairs_table(results), "suite-pairs"),
            )
            if grid.rows
        ],
    )
