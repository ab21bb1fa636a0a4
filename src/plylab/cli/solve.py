"""`plylab solve`: the exact value of a position and of each legal move, from the game's oracle."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import typer

from ..errors import ParseError, UserError

if TYPE_CHECKING:  # OpenSpiel and the games load when `solve` runs, not for `plylab --help`
    import pyspiel

    from ..games import GameDef
    from ..oracles import MoveValues

VALUE_NAMES = {1: "win", 0: "draw", -1: "loss"}


def notation(game: GameDef, state: pyspiel.State) -> Callable[[int], int | str]:
    """How `solve` writes a move: the game's own notation, else the standard formulation's label."""
    if game.move_name is not None:
        named = game.move_name
        return lambda action: named(game, action)
    standard = game.formulation("standard")
    return lambda action: standard.action_label(state, action)


def _generic_moves(game: GameDef, moves: str) -> list[int]:
    """Moves as the standard formulation's labels (e.g. mnk `x(1,1) o(0,0)`), space separated."""
    standard, state, out = game.formulation("standard"), game.new_state(), []
    for i, token in enumerate(moves.replace(";", " ").split(), start=1):
        if state.is_terminal():
            raise UserError(f"the game is over before move {i} of '{moves}'")
        try:
            action = standard.parse_action(state, token)
        except ParseError as err:
            raise UserError(f"move {i} of '{moves}': {err}; accepted: the moves the game lists") from None
        out.append(action)
        state.apply_action(action)
    return out


def position(game: GameDef, moves: str) -> pyspiel.State:
    """The non-terminal state reached by `moves` in the game's own notation."""
    import pyspiel

    if game.engine.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        raise UserError(f"game '{game.spec}' has chance moves; `solve` takes deterministic games")
    parse = game.parse_moves or _generic_moves
    state = game.new_state()
    for i, action in enumerate(parse(game, moves), start=1):
        if state.is_terminal():
            raise UserError(f"the game is over before move {i} of '{moves}'")
        if action not in state.legal_actions():
            raise UserError(f"move {i} of '{moves}' is not legal there")
        state.apply_action(action)
    if state.is_terminal():
        raise UserError(f"the game is over after '{moves}': there is nothing to solve")
    return state


def analysis(game: GameDef, moves: str, state: pyspiel.State, mv: MoveValues) -> dict[str, Any]:
    """JSON-ready: value and score for the side to move, the best moves and every move's value.

    With exact scores (Connect Four), `best_moves` are those of the best score; otherwise those
    of the best value."""
    from ..oracles import best_actions

    name = notation(game, state)
    return {
        "game": game.spec,
        "moves": moves,
        "to_move": state.current_player(),  # the seat, numbered from 0 as the store's `seat` column
        "to_move_name": game.formulation("standard").seat_name(state.current_player()),
        "value": VALUE_NAMES[mv.value],
        "score": mv.score,
        "best_moves": sorted(name(a) for a in best_actions(mv, by="score")),
        "move_values": {
            str(name(a)): {"value": VALUE_NAMES[v], "score": mv.scores[a] if mv.scores is not None else None}
            for a, v in sorted(mv.values.items(), key=lambda item: name(item[0]))
        },
    }


def as_text(result: dict[str, Any]) -> str:
    score = f" (score {result['score']})" if result["score"] is not None else ""
    lines = [
        f"{result['game']} after '{result['moves']}': {result['to_move_name']} (seat {result['to_move']}) to move",
        f"value: {result['value']}{score}",
        f"best moves: {' '.join(str(m) for m in result['best_moves'])}",
    ]
    for move, v in result["move_values"].items():
        lines.append(f"  {move:>5}  {v['value']}" + (f" ({v['score']})" if v["score"] is not None else ""))
    return "\n".join(lines)


def engine_analysis(game: GameDef, moves: str) -> dict[str, Any]:
    """Chess and its variants have no exact value: the engine's evaluation of the position (side to
    move, at the default limit, as `--score` grades a move), its best move and line in SAN."""
    from ..oracles.engine import ENGINE_FOR, engine_oracle, eval_text, missing_line
    from ..oracles.uci import board_of

    state = position(game, moves)
    oracle = engine_oracle(game.spec)
    if oracle is None:
        raise UserError(missing_line(game.spec).replace("is played unscored", "has no engine evaluation"))
    board = board_of(game.spec, state)
    ev = oracle.evaluate(board)
    line, walk = [], board.copy()
    for uci in ev.pv:
        move = walk.parse_uci(uci)
        line.append(walk.san(move))
        walk.push(move)
    return {
        "game": game.spec,
        "moves": moves,
        "to_move": state.current_player(),
        "to_move_name": "White" if board.turn else "Black",
        "engine": oracle.source,
        "evaluation": eval_text(ev.cp, ev.mate),  # the side to move's, in pawns or mate in N
        "cp": ev.cp,
        "mate": ev.mate,
        "expected_score": ev.expected,  # lichess's curve, the mover's (the graded scale)
        "best_move": line[0] if line else None,
        "line": line,
        "exact": False,
        "about": f"{ENGINE_FOR[game.spec]}'s evaluation, not an exact value",
    }


def engine_text(result: dict[str, Any]) -> str:
    return "\n".join(
        [
            f"{result['game']} after '{result['moves']}': {result['to_move_name']} (seat {result['to_move']}) to move",
            f"evaluation: {result['evaluation']} for {result['to_move_name']} (expected score "
            f"{result['expected_score']:.3f}), by {result['engine']}; an engine's, not an exact value",
            f"best move: {result['best_move'] or '–'}",
            f"line: {' '.join(result['line']) or '–'}",
        ]
    )


def solve(
    game: str = typer.Option(..., "--game", help="game name (see `plylab games`)"),
    moves: str = typer.Option(
        "",
        "--moves",
        help="moves from the start in the game's notation: Connect Four columns 1-7 (4453), "
        "tic-tac-toe cells (B2 A1), Nim PILE:TAKE (4:7 3:1), other games their listed move labels "
        "(mnk: x(1,1) o(0,0); chess: SAN, e4 e5 Nf3), games of hidden information the deal and the actions as the engine "
        "names them (kuhn_poker: Deal:0 Deal:1 Pass Bet; liars_dice: 'Roll 1; Roll 6; 1-2'); empty = the initial position",
    ),
    fmt: Literal["text", "json"] = typer.Option("text", "--format", help="text or json"),
) -> None:
    """Exact value (win/draw/loss for the side to move), score where the game has one, and best moves;
    in a game of hidden information the equilibrium's value per seat and each action's value; in
    chess and its variants the engine's evaluation, best move and line."""
    from ..games import get_game

    definition = get_game(game)
    from ..analysis.equilibrium_value import hidden, solved
    from ._equilibrium import as_text as solved_text

    if hidden(definition):  # hidden information: the equilibrium, not minimax
        found = solved(definition, moves)
        print(json.dumps(found.to_json(), indent=2) if fmt == "json" else solved_text(found))
        return
    from ..oracles.uci import maps

    if maps(definition.spec) and not definition.has_oracle:  # chess and its variants: the engine
        found_eval = engine_analysis(definition, moves)
        print(json.dumps(found_eval, indent=2) if fmt == "json" else engine_text(found_eval))
        return
    state = position(definition, moves)
    result = analysis(definition, moves, state, definition.oracle().move_values(state))
    print(json.dumps(result, indent=2) if fmt == "json" else as_text(result))


def register(app: typer.Typer) -> None:
    app.command("solve")(solve)
