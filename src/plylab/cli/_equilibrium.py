"""How `plylab solve` prints a game of hidden information solved (`analysis.equilibrium_value`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..analysis.equilibrium_value import Solved


def as_text(r: Solved) -> str:
    values = ", ".join(
        f"{name} (seat {seat}) {v:+.4f}" for seat, (name, v) in enumerate(zip(r.seats, r.value, strict=True))
    )
    lines = [
        f"{r.game}: equilibrium by {r.solver} ({r.iterations} iterations, {r.information_sets:,} information sets)",
        f"game value: {values}",
        f"exploitability: {r.exploitability:.2e} (target {r.target:.2e}; utility range {r.utility_range:g})",
    ]
    d = r.decision
    if d is not None:
        lines.append(
            f"after '{d.moves}': {d.to_move_name} (seat {d.to_move}) to move at information set "
            f"'{d.information_set}'"
            + (
                " (never reached by the equilibrium: belief from chance alone)"
                if d.belief == "chance"
                else ""
            )
        )
        lines.append(f"  {'action':<12} {'probability':>11} {'value':>9} {'loss':>8}")
        for label, a in d.actions.items():
            lines.append(f"  {label:<12} {a.probability:>11.4f} {a.value:>+9.4f} {a.loss:>8.4f}")
    return "\n".join(lines)
