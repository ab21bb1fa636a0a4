"""`plylab games` and `plylab players`: what is registered."""

from __future__ import annotations

import json
from typing import Any, Literal

import typer

Format = Literal["table", "json"]


def game_rows() -> list[dict[str, Any]]:
    """Every playable game: parameters (with defaults), formulations, exact oracle or not."""
    import pyspiel  # here, not above: `plylab --help` stays fast

    from ..games import GAMES, GameDef
    from ..games.params import game_type
    from ..oracles.engine import ENGINE_FOR
    from ..oracles.generic import exact_at
    from ..oracles.uci import UNMAPPED

    rows = []
    for name in GAMES.names():
        g = GAMES.get(name)
        rows.append(
            {
                "name": g.name,
                "title": g.title,
                "summary": g.summary,
                "parameters": g.parameters,
                "formulations": g.formulations.names(),
                "oracle": g.has_oracle,
                # chess and the variants that map to it: graded by an engine, not an exact oracle
                "engine": ENGINE_FOR.get(g.name)
                or (g.ground_truth.name if g.ground_truth and g.ground_truth.kind == "engine" else None),
                "engine_missing": UNMAPPED.get(g.name),
                "chance": game_type(g.openspiel_name).chance_mode
                != pyspiel.GameType.ChanceMode.DETERMINISTIC,
            }
        )
        if game_type(g.openspiel_name).information != pyspiel.GameType.Information.PERFECT_INFORMATION:
            rows[-1]["hidden"] = True  # each seat sees its own information state
            if g.has_oracle:  # no exact value without perfect information: an equilibrium grades it
                rows[-1]["oracle_kind"] = "equilibrium"
        if g.not_for_text is not None:
            rows[-1]["not_for_text"] = g.not_for_text
        if g.ground_truth is None:  # where it has some (smaller boards), or why it has none
            said = g.oracle_missing != GameDef.__dataclass_fields__["oracle_missing"].default
            note = exact_at(g.openspiel_name, g.openspiel_params) or (g.oracle_missing if said else None)
            if note is not None:
                rows[-1]["truth_note"] = note
    return rows


def bounds() -> dict[str, int]:
    """What a parametrised game may cost before it is refused, and what an exact table may hold."""
    from ..games.params import MAX_BOARD_CELLS, play_cost_limit
    from ..oracles.generic import EDGES_PER_POSITION_LIMIT, MAX_DEPTH, limit

    return {
        "board_cells": MAX_BOARD_CELLS,
        "stored_entries_per_game": play_cost_limit(),
        "oracle_positions": limit(),
        "oracle_edges": EDGES_PER_POSITION_LIMIT * limit(),
        "oracle_depth": MAX_DEPTH,
    }


def bounds_text(b: dict[str, int]) -> str:
    return (
        f"Bounds: a parametrised game is refused before it starts when its board exceeds "
        f"{b['board_cells']:,} cells or one game would store more than {b['stored_entries_per_game']:,} "
        "entries (longest game x (longest game + most legal moves); PLYLAB_GAME_LIMIT). An exact oracle "
        f"is built up to {b['oracle_positions']:,} positions (PLYLAB_ORACLE_LIMIT), "
        f"{b['oracle_edges']:,} moves between them and {b['oracle_depth']:,} plies deep."
    )


def games(fmt: Format = typer.Option("table", "--format", help="table or json")) -> None:
    """Every playable game: its parameters (set them in the name, e.g. mnk:m=4,n=4,k=3), its
    formulations, and whether an exact oracle scores it (a parametrised game may differ), or an
    engine (chess and the variants that map to Fairy-Stockfish); for a game without ground truth, at
    which sizes the exact table scores it (derived from its bound) or why nothing does (Go)."""
    from ..games.params import format_value

    rows = game_rows()
    if fmt == "json":
        print(json.dumps({"games": rows, "bounds": bounds()}, indent=2))
        return
    for r in rows:
        params = ", ".join(f"{k}={format_value(v)}" for k, v in r["parameters"].items()) or "-"
        exact = "equilibrium" if r.get("oracle_kind") == "equilibrium" else "oracle"
        oracle = exact if r["oracle"] else "engine" if r["engine"] else "no oracle"
        chance = " chance" if r["chance"] else ""
        line = f"{r['name']:<22} {oracle:<11}{chance:<7} [{', '.join(r['formulations'])}]  params: {params}"
        if r.get("hidden"):
            line += "  hidden information"
        if r.get("not_for_text"):
            line += f"  not for text players: {r['not_for_text']}"
        if r.get("truth_note"):
            line += f"  ({r['truth_note']})"
        if r["engine"]:
            line += f"  (graded by {r['engine']})"
        elif r["engine_missing"]:
            line += f"  ({r['engine_missing']})"
        print(line)
    print(bounds_text(bounds()))


def players(fmt: Format = typer.Option("table", "--format", help="table or json")) -> None:
    """Registered players of every game family, and their spec options."""
    from ..players import PLAYERS, Player

    classes = [PLAYERS.get(n) for n in PLAYERS]
    rows = [
        {
            "name": c.name,
            "family": c.family,
            "command": c.command,
            "summary": c.summary,
            "options": ", ".join(c.Options.model_fields),
            "uses_model": c.uses_model,
            "games": list((c.games or []) if issubclass(c, Player) else [c.family]),
        }
        for c in classes
    ]
    if fmt == "json":
        print(json.dumps({"players": rows}, indent=2))
        return
    for r in rows:
        print(
            f"{r['name']:<18} {r['family']:<11} {r['summary']}"
            + (f"  [{r['options']}]" if r["options"] else "")
        )


def register(app: typer.Typer) -> None:
    app.command("games")(games)
    app.command("players")(players)
