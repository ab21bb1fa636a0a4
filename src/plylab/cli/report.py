"""`plylab report`: the paper's tables from a store, learning curves, LaTeX and the HTML site."""

from __future__ import annotations

import errno
import json
import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ..analysis import BY, FORMATS, REPORT_TABLES, SCOPES
from ..db import DEFAULT_STORE, reading
from ..errors import UserError
from . import options as o

if TYPE_CHECKING:
    from ..jsontypes import JSONObject
    from ..render.table import Table

REPLAYS = 50  # replay pages per matchup and seat in --html (keeps the site's size bounded)


def report(
    store: o.Store = DEFAULT_STORE,
    run: str | None = typer.Option(None, "--run", help="only this run"),
    fmt: str = typer.Option("table", "--format", help=f"one of: {', '.join(FORMATS)}"),
    table: str = typer.Option("matchups", "--table", help=f"one of: {', '.join(REPORT_TABLES)}"),
    by: str = typer.Option("opponent", "--by", help=f"pivot columns: {', '.join(BY)}"),
    on: str = typer.Option(
        "trace", "--on", help="recognition counted on: trace (the paper's reasoning traces) or reply"
    ),
    recognize: str = typer.Option(
        "names",
        "--recognize",
        help="recognition counts: names (the game's names and spellings, the paper's) or wide "
        "(also other languages, 'X and O', 'misère', nimber)",
    ),
    learning: bool = typer.Option(False, "--learning", help="learning-run checkpoints (plylab learn)"),
    html: Path | None = typer.Option(None, "--html", help="write a self-contained HTML site here"),
    latex: Path | None = typer.Option(None, "--latex", help="write the paper's tables as LaTeX here"),
    pooled_ratings: bool = typer.Option(
        False,
        "--pooled-ratings",
        help="with --html: also rate every game on one pooled scale (default: per game)",
    ),
    replays: int = typer.Option(
        REPLAYS,
        "--replays",
        min=0,
        help="with --html: replay pages per matchup and seat (the first N games by index; 0 = every game)",
    ),
    from_inspect: Path | None = typer.Option(
        None,
        "--from-inspect",
        help="report the games of the inspect eval plylab/game logs in this folder (instead of --store)",
    ),
) -> None:
    """Per-matchup outcomes, optimality with Wilson and game-clustered intervals, usage and tokens."""
    if from_inspect is not None:
        store = _imported(from_inspect)
    _check_names(fmt, recognize, table, by)
    run = _stored_run(store, run)
    with reading(store):
        if html is not None or latex is not None:
            _write_files(store, run, html, latex, replays=replays, pooled_ratings=pooled_ratings)
        elif learning:
            from ..analysis.learning import learning_report

            print(learning_report(store, run, fmt))
        else:
            _print_tables(store, run, table, fmt, by=by, on=on, recognize=recognize)


def _check_names(fmt: str, recognize: str, table: str, by: str) -> None:
    """Each named choice is one the report knows, checked before the store is opened."""
    for what, given, accepted in (
        ("format", fmt, FORMATS),
        ("--recognize", recognize, SCOPES),
        ("table", table, REPORT_TABLES),
        ("--by", by, BY),
    ):
        if given not in accepted:
            raise UserError(f"unknown {what} '{given}'; accepted: {', '.join(accepted)}")


def _stored_run(store: Path, run: str | None) -> str | None:
    """The stored name of `run` (a printed name finds its run); one clear line if the store is missing,
    foreign or unreadable."""
    from ..harness.store import Store

    opened = Store(store, create=False)
    try:
        return opened.stored_run_name(run) if run is not None else None
    finally:
        opened.close()


def _write_files(
    store: Path, run: str | None, html: Path | None, latex: Path | None, *, replays: int, pooled_ratings: bool
) -> None:
    """The HTML site and the LaTeX tables, each where it was asked for."""
    if html is not None:
        from ..reports.site import write_site

        with writing(html, "site"):
            print(f"wrote {write_site(store, run, html, replays=replays, pooled_ratings=pooled_ratings)}")
    if latex is not None:
        from ..reports.latex import write_latex

        with writing(latex, "LaTeX tables"):
            index, *tables = write_latex(store, run, latex)
            listed = ", ".join(p.name for p in tables)
            print(
                f"wrote {index}, which inputs {len(tables)} files: {listed}"
                if tables
                else f"wrote {index} (no games, so no tables)"
            )


def _print_tables(
    store: Path, run: str | None, table: str, fmt: str, *, by: str, on: str, recognize: str
) -> None:
    """`table` (and the tables that follow it) in `fmt`; under the matchups, the engine-graded games'
    figures (chess, backgammon)."""
    from ..analysis.backgammon import backgammon_rows, backgammon_table
    from ..analysis.chess import chess_rows, chess_table
    from ..analysis.metrics import CLUE_KIND
    from ..analysis.report_source import ReportSource
    from ..analysis.scoring import scoring_rules
    from ..analysis.tables import follow_ups
    from ..harness.store import Store
    from ..render.table import get_table
    from ..render.table import render as render_table

    s = Store(store, create=False)
    try:  # the table from the registry (analysis.tables registers the report's)
        source = ReportSource(s, run, by, recognition_on=on, recognize=recognize)
        built = [get_table(table).build(source), *follow_ups(source, table, fmt)]
        graded = chess_rows(s, run) if table == "matchups" else []  # engine-graded games (chess)
        checker = backgammon_rows(s, run) if table == "matchups" else []  # gnubg-graded backgammon
        clue = CLUE_KIND in s.run_kinds(run)
        counted = scoring_rules(s, run) if table == "matchups" else []  # Go: GNU Go's count
    finally:
        s.close()
    out = "\n\n".join(render_table(t, fmt) for t in built)
    if graded:
        out = _beneath(out, fmt, "chess", [r.to_json() for r in graded], lambda: chess_table(graded))
    if checker:
        out = _beneath(
            out, fmt, "backgammon", [r.to_json() for r in checker], lambda: backgammon_table(checker)
        )
    if counted and fmt == "json":
        out = json.dumps({**json.loads(out), "scoring": counted}, indent=2)
    elif counted and fmt == "table":
        out = out.rstrip("\n") + "\n\n" + "\n".join(f"results: {line}" for line in counted)
    print(out)
    if clue and fmt == "table":
        print(
            f"Clue runs in this store are scored by `plylab clue report --store {shlex.quote(str(store))}`."
        )


def _beneath(out: str, fmt: str, key: str, rows: list[JSONObject], table: Callable[[], Table]) -> str:
    """`out` with more figures: under `key` in the JSON object, else their table rendered below it."""
    from ..render.table import render as render_table

    if fmt == "json":
        return json.dumps({**json.loads(out), key: rows}, indent=2)
    return out + "\n\n" + render_table(table(), fmt)


@contextmanager
def writing(out: Path, what: str) -> Iterator[None]:
    """A full disk (or any write error) while writing output: one line that says what survives."""
    try:
        yield
    except OSError as exc:
        reason = exc.strerror or str(exc)
        full = exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)
        if full:
            reason += " (disk full or file size limit reached)"
        remedy = "free space" if full else "choose a folder you can write to"  # read-only, missing, denied
        raise UserError(
            f"could not finish writing the {what} to '{out}': {reason}; the store was only read and nothing in it "
            f"is lost; the pages already written may be incomplete, so {remedy} and run the same command again"
        ) from None


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def _imported(log_dir: Path) -> Path:
    """The games of `log_dir`'s plylab/game logs in a store of their own, removed at exit."""
    import atexit
    import shutil
    import tempfile

    from ..tasks.logs import import_game_logs

    folder = Path(tempfile.mkdtemp(prefix="plylab-inspect-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    import_game_logs(log_dir, folder / "inspect.sqlite")
    return folder / "inspect.sqlite"
