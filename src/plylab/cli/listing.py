"""`plylab games` and `plylab players`: what is registered."""

from __future__ import annotations

import json

import typer

from ..errors import UserError
from ..games import GAMES
from ..players import PLAYERS


def _emit(rows: list[dict], fmt: str, key: str) -> None:
    if fmt == "json":
        print(json.dumps({key: rows}, indent=2))
    elif fmt == "table":
        for r in rows:
            extra = ", ".join(r.get("formulations", [])) or r.get("options", "")
            print(f"{r['name']:<18} {r['summary']}" + (f"  [{extra}]" if extra else ""))
    else:
        raise UserError(f"unknown format '{fmt}'; accepted: table, json")


def games(fmt: str = typer.Option("table", "--format", help="table or json")) -> None:
    """Registered games with their formulations."""
    rows = [
        {"name": g.name, "title": g.title, "summary": g.summary, "formulations": g.formulations.names(),
         "oracle": g.has_oracle}
        for g in (GAMES.get(n) for n in GAMES.names())
    ]
    _emit(rows, fmt, "games")


def players(fmt: str = typer.Option("table", "--format", help="table or json")) -> None:
    """Registered players and their spec options."""
    from ..clue.players import CLUE_PLAYERS

    rows = [
        {"name": c.name, "summary": c.summary, "options": ", ".join(c.Options.model_fields),
         "uses_model": getattr(c, "uses_model", c.name == "clue-llm"),
         "games": list(c.games) if getattr(c, "games", None) else (["clue"] if c.name.startswith("clue-") else None)}
        for c in [PLAYERS.get(n) for n in PLAYERS.names()] + [CLUE_PLAYERS.get(n) for n in CLUE_PLAYERS.names()]
    ]
    _emit(rows, fmt, "players")


def register(app: typer.Typer) -> None:
    app.command("games")(games)
    app.command("players")(players)
