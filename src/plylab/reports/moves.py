"""How the site names a move: the label its player saw, less the action number OpenSpiel writes
before some games' move text (backgammon's `137 - 8/3 6/3` is the play `8/3 6/3`), and one name for
the moves that make the same play (backgammon's two orders of the same dice reach one position)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyspiel

    from ..games import Formulation

ACTION_NUMBER = re.compile(r"^\d+ - (?=\S)")


def named(label: str | None) -> str | None:
    """A stored or formulated move label as the site prints it."""
    return None if label is None else ACTION_NUMBER.sub("", label)


def plays(
    f: Formulation | None, state: pyspiel.State | None, actions: list[int] | tuple[int, ...]
) -> list[str]:
    """The names of `actions` at `state`, one per distinct position they lead to (the same play
    reached in two orders is named once), in the actions' order."""
    out: dict[str, str] = {}
    for a in actions:
        name = named(f.action_label(state, a) if f is not None and state is not None else str(a)) or str(a)
        key = str(state.child(a)) if state is not None and a in state.legal_actions() else name
        out.setdefault(key, name)
    return list(dict.fromkeys(out.values()))
