"""`plylab export`: stored runs, games or moves as CSV or Parquet, for analysis elsewhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..errors import UserError
from ..harness.store import DEFAULT_STORE, Store, expand_attempts, json_text, reading

TABLES = ("runs", "games", "moves")
FORMATS = ("csv", "parquet")
QUERIES = {
    "runs": "SELECT * FROM runs WHERE (:run IS NULL OR name = :run) ORDER BY id",
    "games": "SELECT r.name AS run, g.* FROM games g JOIN runs r ON r.id = g.run_id "
             "WHERE (:run IS NULL OR r.name = :run) ORDER BY g.id",
    "moves": "SELECT r.name AS run, g.job_key, g.game, g.formulation, m.* FROM moves m "
             "JOIN games g ON g.id = m.game_id JOIN runs r ON r.id = g.run_id "
             "WHERE (:run IS NULL OR r.name = :run) ORDER BY m.game_id, m.ply",
}


def export(
    out: Path = typer.Argument(..., help="output file"),
    store: Path = typer.Option(DEFAULT_STORE, "--store", help="SQLite results store"),
    table: str = typer.Option("games", "--table", help=f"one of: {', '.join(TABLES)}"),
    fmt: Optional[str] = typer.Option(None, "--format", help="csv or parquet (default: from the file suffix)"),
    run: Optional[str] = typer.Option(None, "--run", help="only this run"),
) -> None:
    """Write one table of the store to a CSV or Parquet file."""
    fmt = fmt or out.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise UserError(f"unknown export format '{fmt}'; accepted: {', '.join(FORMATS)} (or a .csv/.parquet name)")
    if table not in TABLES:
        raise UserError(f"unknown table '{table}'; accepted: {', '.join(TABLES)}")
    if not out.parent.is_dir():
        raise UserError(f"cannot write '{out}': directory '{out.parent}' does not exist; create it first")
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    s = Store(store, create=False)
    try:
        with reading(store):
            if run is not None:
                s.runs(run)  # one clear line for an unknown run
            cur = s.conn.execute(QUERIES[table], {"run": run})
            names = [d[0] for d in cur.description]
            rows = cur.fetchall()
    finally:
        s.close()
    columns = {n: [r[i] for r in rows] for i, n in enumerate(names)}
    if "attempts" in columns:  # texts stored once (in the move's column) go back into each attempt
        columns["attempts"] = [
            json_text(expand_attempts(json.loads(a), r)) if a else a for a, r in zip(columns["attempts"], rows)
        ]
    data = pa.table(columns)
    try:
        if fmt == "csv":
            pacsv.write_csv(data, out)
        else:
            pq.write_table(data, out)
    except OSError as exc:
        raise UserError(f"cannot write '{out}': {exc.strerror or exc}; the store was only read, nothing in it "
                        "changed") from None
    print(f"wrote {len(rows)} {table} to {out}")


def register(app: typer.Typer) -> None:
    app.command("export")(export)
