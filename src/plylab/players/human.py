"""A person at the terminal: sees the board and the legal moves, re-asked until the move is legal."""

from __future__ import annotations

import asyncio
from typing import Any

from rich.console import Console

from ..errors import ParseError
from .base import Attempt, Decision, Player, Turn, register_player


@register_player
class HumanPlayer(Player):
    name = "human"
    summary = "you, in the terminal"
    shows_observation = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.console = Console()

    def _ask(self, turn: Turn) -> Decision:
        f = turn.formulation
        self.console.print(f"\n[bold]{f.seat_name(turn.seat)} to move[/bold] (ply {turn.ply + 1})")
        self.console.print(f.render_state(turn.state), markup=False)
        labels = list(f.legal_labels(turn.state))
        self.console.print("Legal moves: " + " | ".join(labels), markup=False)
        attempts: list[Attempt] = []
        while True:
            try:
                text = self.console.input("Your move: ")
            except EOFError:
                return Decision(None, attempts, failure="empty")
            try:
                action = f.parse_action(turn.state, text)
                attempts.append(Attempt(reply=text))
                return Decision(action, attempts)
            except ParseError as err:
                attempts.append(
                    Attempt(reply=text, failure=getattr(err, "kind", "unparseable"), error=str(err))
                )
                self.console.print(f"[red]{err}[/red]; choose one of: {', '.join(labels)}")

    async def act(self, turn: Turn) -> Decision:
        return await asyncio.to_thread(self._ask, turn)
