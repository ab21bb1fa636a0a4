"""A game of hidden information solved (what `plylab solve` says of one): the equilibrium's value for
each seat, the exploitability reached and the solver, and after a history the equilibrium's probability
and value of each legal action at the mover's information set."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import UserError
from ..jsontypes import JSONObject

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
    """The game's equilibrium (built and cached on first use)."""
    from ..oracles.equilibrium import EquilibriumOracle

    oracle = game.oracle()
    if not isinstance(oracle, EquilibriumOracle):
        raise UserError(f"game '{game.spec}' has no equilibrium oracle")
    return oracle


@dataclass(frozen=True)
class ActionValue:
    """One legal action at the decision: its equilibrium probability, its value and its loss."""

    probability: float
    value: float
    loss: float


@dataclass(frozen=True)
class Decision:
    """The decision after a history: who moves, at which information set, with what belief."""

    moves: str
    to_move: int
    to_move_name: str
    information_set: str
    belief: str
    actions: dict[str, ActionValue]


@dataclass(frozen=True)
class Solved:
    """A game's equilibrium: value per seat, exploitability, solver, and the decision if any."""

    game: str
    solver: str
    iterations: int
    exploitability: float
    target: float
    utility_range: float
    information_sets: int
    value: list[float]  # per seat, numbered from 0 as the store's `seat` column
    seats: list[str]  # each seat's name beside it
    decision: Decision | None = None

    def to_json(self) -> JSONObject:
        out: JSONObject = {
            "game": self.game,
            "solver": self.solver,
            "iterations": self.iterations,
            "exploitability": self.exploitability,
            "target": self.target,
            "utility_range": self.utility_range,
            "information_sets": self.information_sets,
            "value": list(self.value),
            "seats": list(self.seats),
        }
        d = self.decision
        if d is not None:
            out.update(
                moves=d.moves,
                to_move=d.to_move,
                to_move_name=d.to_move_name,
                information_set=d.information_set,
                belief=d.belief,
                actions={
                    label: {"probability": a.probability, "value": a.value, "loss": a.loss}
                    for label, a in d.actions.items()
                },
            )
        return out


def solved(game: GameDef, moves: str) -> Solved:
    """Value per seat, exploitability, solver, and the decision after `moves` if any.

    Args:
        game: a game of hidden information graded by an equilibrium (built and cached on first use).
        moves: the deal and the actions so far, as `history` reads them; blank for the game alone.

    Raises:
        UserError: the game has no equilibrium, or `moves` does not lead to a player's decision.
    """
    oracle = oracle_of(game)
    names = game.formulation("standard")
    decision = None
    if moves.strip():
        state = history(game, moves)
        grade = oracle.grade(state, state.legal_actions()[0])
        decision = Decision(
            moves=moves,
            to_move=state.current_player(),
            to_move_name=names.seat_name(state.current_player()),
            information_set=str(grade.detail["infoset"]),
            belief=str(grade.detail["belief"]),
            actions={
                _label(state, a): ActionValue(float(grade.detail["policy"][str(a)]), v, grade.loss(a))
                for a, v in sorted(grade.expected.items())
            },
        )
    return Solved(
        game=game.spec,
        solver=oracle.solver,
        iterations=oracle.iterations,
        exploitability=oracle.exploitability,
        target=oracle.target,
        utility_range=oracle.span,
        information_sets=len(oracle),
        value=list(oracle.value),
        seats=[names.seat_name(seat) for seat in range(len(oracle.value))],
        decision=decision,
    )
