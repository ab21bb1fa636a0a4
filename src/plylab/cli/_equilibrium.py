"""`plylab solve` on a game of hidden information: the equilibrium's value for each seat, the
exploitability reached and the solver, and after a history the equilibrium's probability and value
of each legal action at the mover's information set."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import UserError

if TYPE_CHECKING:
    import pyspiel

    from ..games import GameDef
    from ..oracles.equilibrium import EquilibriumOracle


def hidden(game: GameDef) -> bool:
    """True for a game of imperfect information (solved by its equilibrium, not minimax)."""
    import pyspiel

    return bool(game.engine.get_type().information != pyspiel.GameType.Information.PERFECT_INFORMATION)


def _label(state: pyspiel.State, action: int) -> str:
    return str(state.action_to_string(state.current_player(), action))


def history(game: GameDef, moves: str) -> pyspiel.State:
    """The state after `moves`: the deal and the players' actions, each an engine label or an
    action number, separated by spaces (Kuhn poker: 'Deal:0 Deal:1 Pass Bet'), or by ';' where a
    label has a space (Liar's dice: 'Roll 1; Roll 6; 1-2')."""
    state = game.new_state()
    tokens = [t.strip() for t in moves.split(";")] if ";" in moves else moves.split()
    for i, token in enumerate((t for t in tokens if t), start=1):
        if state.is_terminal():
            raise UserError(f"the game is over before move {i} of '{moves}'")
        legal = state.legal_actions()
        labels = {_label(state, a).lower(): a for a in legal}
        action = labels.get(token.lower())
        if action is None and token.lstrip("-").isdigit() and int(token) in legal:
            action = int(token)
        if action is None:
            shown = ", ".join(_label(state, a) for a in legal)
            raise UserError(f"move {i} of '{moves}' ('{token}') is not legal there; accepted: {shown}")
        state.apply_action(action)
    if state.is_terminal():
        raise UserError(f"the game is over after '{moves}': there is nothing to solve")
    if state.is_chance_node():
        shown = ", ".join(_label(state, a) for a in state.legal_actions())
        raise UserError(f"after '{moves}' chance moves next; give one of: {shown}")
    return state


def oracle_of(game: GameDef) -> EquilibriumOracle:
    from ..oracles.equilibrium import EquilibriumOracle

    oracle = game.oracle()
    if not isinstance(oracle, EquilibriumOracle):
        raise UserError(f"game '{game.spec}' has no equilibrium oracle")
    return oracle


def analysis(game: GameDef, moves: str) -> dict[str, Any]:
    """JSON-ready: value per seat, exploitability, solver, and the decision after `moves` if any."""
    oracle = oracle_of(game)
    names = game.formulation("standard")
    out: dict[str, Any] = {
        "game": game.spec,
        "solver": oracle.solver,
        "iterations": oracle.iterations,
        "exploitability": oracle.exploitability,
        "target": oracle.target,
        "utility_range": oracle.span,
        "information_sets": len(oracle),
        # per seat, numbered from 0 as the store's `seat` column, with each seat's name beside it
        "value": list(oracle.value),
        "seats": [names.seat_name(seat) for seat in range(len(oracle.value))],
    }
    if moves.strip():
        state = history(game, moves)
        grade = oracle.grade(state, state.legal_actions()[0])
        out.update(
            moves=moves,
            to_move=state.current_player(),
            to_move_name=names.seat_name(state.current_player()),
            information_set=grade.detail["infoset"],
            belief=grade.detail["belief"],
            actions={
                _label(state, a): {
                    "probability": float(grade.detail["policy"][str(a)]),
                    "value": v,
                    "loss": grade.loss(a),
                }
                for a, v in sorted(grade.expected.items())
            },
        )
    return out


def as_text(r: dict[str, Any]) -> str:
    values = ", ".join(
        f"{name} (seat {seat}) {v:+.4f}"
        for seat, (name, v) in enumerate(zip(r["seats"], r["value"], strict=True))
    )
    lines = [
        f"{r['game']}: equilibrium by {r['solver']} ({r['iterations']} iterations, "
        f"{r['information_sets']:,} information sets)",
        f"game value: {values}",
        f"exploitability: {r['exploitability']:.2e} (target {r['target']:.2e}; utility range {r['utility_range']:g})",
    ]
    if "actions" in r:
        lines.append(
            f"after '{r['moves']}': {r['to_move_name']} (seat {r['to_move']}) to move at information set "
            f"'{r['information_set']}'"
            + (
                " (never reached by the equilibrium: belief from chance alone)"
                if r["belief"] == "chance"
                else ""
            )
        )
        lines.append(f"  {'action':<12} {'probability':>11} {'value':>9} {'loss':>8}")
        for label, a in r["actions"].items():
            lines.append(f"  {label:<12} {a['probability']:>11.4f} {a['value']:>+9.4f} {a['loss']:>8.4f}")
    return "\n".join(lines)
