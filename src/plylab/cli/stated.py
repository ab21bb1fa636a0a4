"""`plylab stated`: the exact exploitability of a model's *stated* strategy (issue 41).

Its own command, not a `report` table: a report reads what a run stored and calls no model, while
the stated strategy is asked afresh, once at every information set of the game (Kuhn poker: 12
calls), as a small suite of the whole game; like `solve`, it answers one question about a game at
once. `--store` keeps the replies in that store's response cache, so asking again costs nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import typer

from ..errors import UserError
from ..words import count


def stated(
    game: str = typer.Option(..., "--game", help="a game with an equilibrium: kuhn_poker, leduc_poker, ..."),
    player: str = typer.Option(..., "--player", help="an llm player with output=distribution"),
    formulation: str = typer.Option("standard", "--formulation", help="how the game is shown"),
    seed: int = typer.Option(0, "--seed", help="the player's seed (the per-call seeds follow it)"),
    store: Path | None = typer.Option(
        None, "--store", help="keep the replies in this store's response cache"
    ),
    fmt: Literal["text", "json"] = typer.Option("text", "--format", help="text or json"),
) -> None:
    """Ask the model's stated strategy (a probability over the legal moves) once at every information
    set and give its exact exploitability (OpenSpiel's, half the NashConv; the uniform policy in Kuhn
    poker: 0.4583); an unusable answer is played uniformly and counted, and one whose numbers do not sum
    to 1 is rescaled to and named."""
    from ..analysis.equilibrium import GAMES, has_equilibrium
    from ..analysis.stated import stated_exploitability
    from ..games import get_game
    from ..players import RunContext, make_player
    from ..players.llm import LLMPlayer

    definition = get_game(game)
    if not has_equilibrium(definition.spec):
        raise UserError(
            f"game '{definition.spec}' has no equilibrium to measure a stated strategy against; "
            f"accepted: {', '.join(GAMES)}"
        )
    chosen = definition.formulation(formulation)
    context = None
    if store is not None:
        from ..harness.store import Store

        Store(store).close()  # a plylab store: made if new, one line if the file is something else
        context = RunContext(store_path=store)
    asked = make_player(player, definition, seed, context)
    try:
        if not isinstance(asked, LLMPlayer):
            raise UserError(f"player '{player}' states no strategy; use llm:...,output=distribution")
        found = stated_exploitability(asked, definition, chosen)
    finally:
        asked.close()
    result = {
        "game": definition.spec,
        "formulation": chosen.name,
        "player": player,
        "exploitability": found.exploitability,
        "infosets": found.infosets,
        "uniform": found.uniform,
        "strategy": {k: {str(a): p for a, p in v.items()} for k, v in found.strategy.items()},
        "moves": {k: {str(a): m for a, m in v.items()} for k, v in found.moves.items()},
        "rescaled": found.rescaled,
    }
    if fmt == "json":
        print(json.dumps(result, indent=2))
        return
    print(
        f"{definition.spec} ({chosen.name}), {player}: the stated strategy's exploitability "
        f"{found.exploitability:.4f} ({found.infosets} information sets asked, {found.uniform} unusable "
        "answers played uniformly)"
    )
    if found.rescaled:
        print(f"  {count(len(found.rescaled), 'answer')} did not sum to 1: divided by its sum (marked below)")
    for key, probs in found.strategy.items():  # the engine's names of the moves at that state
        names = found.moves[key]
        total = found.rescaled.get(key)
        given = "" if total is None else f"  (summed to {_number(total)}, rescaled)"
        print(f"  {key:<12} " + "  ".join(f"{names[a]}: {p:.3f}" for a, p in sorted(probs.items())) + given)


def _number(value: float | str) -> str:
    """A stated sum as the table shows it (words where it overflowed a float)."""
    return value if isinstance(value, str) else f"{value:.4g}"


def register(app: typer.Typer) -> None:
    app.command("stated")(stated)
