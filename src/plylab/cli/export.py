"""`plylab export`: stored runs, games or moves as CSV or Parquet, for analysis elsewhere."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

import typer

from ..cells import cell
from ..db import DEFAULT_STORE, reading
from ..errors import UserError
from ..printable import printable
from ..words import count as counted
from . import options as o

if TYPE_CHECKING:
    import pyarrow as pa

    from ..harness.store import Store

FORMATS = ("csv", "parquet", "inspect", "pgn")


def export(
    out: Path = typer.Argument(..., metavar="OUT", help="output file (a directory with --format inspect)"),
    store: o.Store = DEFAULT_STORE,
    table: Literal["runs", "games", "moves"] = typer.Option(
        "games", "--table", help="which table, one row per run, game or ply (both seats' moves)"
    ),
    fmt: str | None = typer.Option(
        None,
        "--format",
        help="csv, parquet (default: from the file suffix), inspect (eval logs for `inspect view`) "
        "or pgn (chess games with the engine's evaluations)",
    ),
    run: str | None = typer.Option(None, "--run", help="only this run"),
) -> None:
    """Write one table of the store to a CSV or Parquet file, its runs as inspect eval logs, or its
    chess games as PGN."""
    fmt = fmt or out.suffix.lstrip(".").lower()
    if fmt == "inspect":
        from ..reports.inspect_export import export_inspect

        export_inspect(store, out, run)
        return
    if fmt == "pgn":
        from ..reports.pgn import export_pgn

        refuse_store_as_output(out, store)
        print(f"wrote {counted(export_pgn(store, out, run), 'game')} to {printable(str(out))}")
        return
    if fmt not in FORMATS:
        raise UserError(
            f"unknown export format '{fmt}'; accepted: {', '.join(FORMATS)} (or a .csv/.parquet name)"
        )
    if not out.parent.is_dir():
        raise UserError(f"cannot write '{out}': directory '{out.parent}' does not exist; create it first")
    refuse_store_as_output(out, store)
    from ..harness.store import Store

    s = Store(store, create=False)
    try:
        with reading(store):
            if run is not None:
                s.runs(run)  # one clear line for an unknown run
            count = _write(s, table, run, out, fmt)
    finally:
        s.close()
    print(f"wrote {counted(count, table.removesuffix('s'))} to {printable(str(out))}")


def refuse_store_as_output(out: Path, store: Path) -> None:
    """An output path that is the store itself (or its -wal/-shm) would destroy what it exports."""
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{store}{suffix}")
        same = out.resolve() == part.resolve()
        if not same and out.exists() and part.exists():
            same = out.samefile(part)  # a hard link, or another name for the same file
        if same:
            raise UserError(
                f"cannot write '{out}': it is the store '{part}' being exported; "
                "give another output path (the store was left unchanged)"
            )


BATCH = 2000  # rows in memory at once: the export streams, whatever the store's size


def _schema(store: Store, names: list[str]) -> pa.Schema:
    """Column types from the tables' declared SQLite types, so every batch has the same schema."""
    import pyarrow as pa

    arrow = {"INTEGER": pa.int64(), "REAL": pa.float64()}  # anything else is text
    declared = {"run": "TEXT", **store.declared_types()}
    return pa.schema([(n, arrow.get(declared.get(n, "TEXT"), pa.string())) for n in names])


def _write(store: Store, table: str, run: str | None, out: Path, fmt: str) -> int:
    """Stream the table's rows into `out`, BATCH rows at a time; return how many were written."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    exported = store.export_rows(table, run, BATCH)
    names = exported.names
    schema = _schema(store, names)
    count = 0
    try:
        with pacsv.CSVWriter(out, schema) if fmt == "csv" else pq.ParquetWriter(out, schema) as writer:
            for rows in exported.batches:
                columns = {n: [r[i] for r in rows] for i, n in enumerate(names)}
                if fmt == "csv":  # text a spreadsheet would run as a formula gets a leading quote
                    columns = {n: [cell(v) for v in vs] for n, vs in columns.items()}
                writer.write_table(pa.table(columns, schema=schema))
                count += len(rows)
    except OSError as exc:
        raise UserError(
            f"cannot write '{out}': {exc.strerror or exc}; the store was only read, nothing in it changed"
        ) from None
    return count


def register(app: typer.Typer) -> None:
    app.command("export")(export)
