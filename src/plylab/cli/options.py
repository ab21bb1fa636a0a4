"""The flags several commands share, defined once so each idea has one spelling and one help text.

Old spellings stay as hidden aliases for one release (`--parallel` for `--concurrency`, `--name` for `--run`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

Store = Annotated[Path, typer.Option("--store", help="SQLite results store")]
Seed = Annotated[int, typer.Option("--seed", help="run seed; each game's seed is derived from it")]
Concurrency = Annotated[int, typer.Option("--concurrency", min=1, help="games in flight at once")]
Parallel = Annotated[int | None, typer.Option("--parallel", min=1, hidden=True)]  # old --concurrency
OldName = Annotated[str | None, typer.Option("--name", hidden=True)]  # old --run
Backend = Annotated[str, typer.Option("--backend", help="executor backend: local or ray")]
Address = Annotated[
    str | None,
    typer.Option(
        "--address", help="Ray cluster to join, e.g. 10.0.0.5:6379 or auto (default: start one here)"
    ),
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")]
MaxCalls = Annotated[
    int | None, typer.Option("--max-calls", help="stop starting games after N new model calls")
]
MaxTokens = Annotated[
    int | None, typer.Option("--max-tokens", help="... after N new tokens (input + output)")
]
MaxCost = Annotated[float | None, typer.Option("--max-cost", help="... after USD dollars of new calls")]
DryRun = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="print the games, expected model calls and (hosted models) tokens and cost, then stop; no store is created",
    ),
]
