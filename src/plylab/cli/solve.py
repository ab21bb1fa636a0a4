"""`plylab solve`: the exact value of a position and of each legal move, from the game's oracle."""

from __future__ import annotations

import json
from collections.abc import Callable

import pyspiel
import typer

from ..errors import UserError
from ..games import GameDef, get_game
from ..games.nim import decode
from ..games.tic_tac_toe import cell_name
from ..oracles import MoveValues, best_actions

VALUE_NAMES = {1: "win", 0: "draw", -1: "loss"}

# Each game's move notation, the inverse of its `parse_moves`: what `--moves` accepts, we print.
NOTATION: dict[str, Callable[[int], int | str]] = {
    "connect_four": lambda action: action + 1,
    "tic_tac_toe": cell_name,
    "nim": lambda action: f"{decode(action)[0] + 1}:{decode(action)[1]}",
}


def position(game: GameDef, moves: str) -> pyspiel.State:
    """The non-terminal state reached by `moves` in the game's own notation."""
    if game.parse_moves is None or game.name not in NOTATION:
        raise UserError(f"game '{game.name}' has no move notation for `solve`")
    state = game.new_state()
    for i, action in enumerate(game.parse_moves(game, moves), start=1):
        if state.is_terminal():
            raise UserError(f"the game is over before move {i} of '{moves}'")
        if action not in state.legal_actions():
            raise UserError(f"move {i} of '{moves}' is not legal there")
        state.apply_action(action)
    if state.is_terminal():
        raise UserError(f"the game is over after '{moves}': there is nothing to solve")
    return state


def analysis(game: GameDef, moves: str, state: pyspiel.State, mv: MoveValues) -> dict:
    """JSON-ready: value and score for the side to move, the best moves and every move's value.

    With exact scores (Connect Four), `best_moves` are those of the best score; otherwise those
    of the best value."""
    name = NOTATION[game.name]
    return {
        "game": game.name,
        "moves": moves,
        "to_move": state.current_player() + 1,
        "value": VALUE_NAMES[mv.value],
        "score": mv.score,
        "best_moves": sorted(name(a) for a in best_actions(mv, by="score")),
        "move_values": {
            str(name(a)): {"value": VALUE_NAMES[v], "score": mv.scores[a] if mv.scores is not None else None}
            for a, v in sorted(mv.values.items(), key=lambda item: name(item[0]))
        },
    }


def as_text(result: dict) -> str:
    score = f" (score {result['score']})" if result["score"] is not None else ""
    lines = [
        f"{result['game']} after '{result['moves']}': player {result['to_move']} to move",
        f"value: {result['value']}{score}",
        f"best moves: {' '.join(str(m) for m in result['best_moves'])}",
    ]
    for move, v in result["move_values"].items():
        lines.append(f"  {move:>5}  {v['value']}" + (f" ({v['score']})" if v["score"] is not None else ""))
    return "\n".join(lines)


def solve(
    game: str = typer.Option(..., "--game", help="game name (see `plylab games`)"),
    moves: str = typer.Option(
        "",
        "--moves",
        help="moves from the start in the game's notation: Connect Four columns 1-7 (4453), "
        "tic-tac-toe cells (B2 A1), Nim PILE:TAKE (4:7 3:1); empty = the initial position",
    ),
    fmt: str = typer.Option("text", "--format", help="text or json"),
) -> None:
    """Exact value (win/draw/loss for the side to move), score where the game has one, and best moves."""
    if fmt not in ("text", "json"):
        raise UserError(f"unknown format '{fmt}'; accepted: json, text")
    definition = get_game(game)
    state = position(definition, moves)
    result = analysis(definition, moves, state, definition.oracle().move_values(state))
    print(json.dumps(result, indent=2) if fmt == "json" else as_text(result))


def register(app: typer.Typer) -> None:
    app.command("solve")(solve)
