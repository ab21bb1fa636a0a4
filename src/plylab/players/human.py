"""A person at the terminal: the board before each move, the opponent's replies, the end and who won.

The prompt is read on a daemon thread that polls stdin, so Ctrl-C (or SIGTERM) at the prompt stops
the run at once: the thread is told to stop and nothing waits for a line that will never come.
"""

from __future__ import annotations

import asyncio
import os
import select
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import pyspiel
from rich.console import Console

from ..errors import ParseError
from ..games import Formulation, GameDef
from ..specs import Params, Spec
from ..words import count
from .base import Attempt, Decision, GameResult, Player, RunContext, Turn, register_player

POLL = 0.1  # seconds between checks that the run is still going while waiting for a line


class _Stopped(Exception):
    """The run ended (Ctrl-C, SIGTERM) while the prompt was waiting."""


class _Lines:
    """Lines from stdin's file descriptor, read without blocking past `stop`.

    One per process (stdin is one stream): a line typed ahead, or piped in, is kept for the next
    prompt, even when that prompt belongs to the next game."""

    def __init__(self) -> None:
        self.pending = b""
        self.eof = False
        self.lock = threading.Lock()

    def readline(self, stop: threading.Event) -> str:
        with self.lock:
            try:
                fd = sys.stdin.fileno()
            except (AttributeError, OSError, ValueError):  # no real stdin (an embedding host): block
                return input()
            while b"\n" not in self.pending and not self.eof:
                if stop.is_set():
                    raise _Stopped
                ready, _, _ = select.select([fd], [], [], POLL)
                if ready:
                    chunk = os.read(fd, 4096)
                    self.pending += chunk
                    self.eof = not chunk
            if b"\n" not in self.pending:
                if not self.pending:
                    raise EOFError
                line, self.pending = self.pending, b""
            else:
                line, self.pending = self.pending.split(b"\n", 1)
            return line.decode(errors="replace")


_STDIN = _Lines()
T = TypeVar("T")


def _read_line(stop: threading.Event, done: asyncio.Future[str], loop: asyncio.AbstractEventLoop) -> None:
    def settle(set_result: Callable[[T], None], value: T) -> None:
        if not done.done():
            set_result(value)

    try:
        line = _STDIN.readline(stop)
    except _Stopped:
        return
    except BaseException as exc:  # noqa: BLE001 - EOF (and anything else) reaches the awaiting move
        loop.call_soon_threadsafe(settle, done.set_exception, exc)
        return
    loop.call_soon_threadsafe(settle, done.set_result, line)


async def read_line() -> str:
    """One line from the terminal; cancelling the awaiting task ends the wait within POLL seconds."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[str] = loop.create_future()
    stop = threading.Event()
    # a daemon thread, not the default executor: asyncio.run waits for that executor when it ends
    threading.Thread(target=_read_line, args=(stop, done, loop), daemon=True).start()
    try:
        return await done
    finally:
        stop.set()


@register_player
class HumanPlayer(Player):
    summary = "you, in the terminal"
    shows_observation = True
    interactive = True

    def __init__(
        self, spec: Spec, options: Params, game: GameDef, seed: int, context: RunContext | None = None
    ) -> None:
        super().__init__(spec, options, game, seed, context)
        self.console = Console(highlight=False)
        self.formulation: Formulation[Any] | None = None
        self.seat = 0
        self.shown = 0  # actions of the game's history already shown (announced or played here)

    def _say(self, text: str, style: str | None = None) -> None:
        self.console.print(text, style=style, markup=False)

    def _announce(self, f: Formulation[Any], history: list[int]) -> pyspiel.State:
        """Say what happened since this player last moved (the opponent's replies, chance draws).

        Under hidden information only the moves this seat can name are said (a public bet, its own
        card): a move it cannot see is not announced at all, since how many there were is itself
        hidden (phantom tic-tac-toe: each of the opponent's tries on a cell you hold is a move of
        its own; your information state does not count them). The view says what the seat knows."""
        state = self.game.new_state()
        hidden = not self.game.perfect_information
        for i, action in enumerate(history):
            if i >= self.shown and hidden:  # only what this seat sees of the move (or nothing)
                seen = f.seen_label(state, action, self.seat)
                if seen is not None and state.is_chance_node():
                    self._say(f"Chance: {seen}")
                elif seen is not None and state.current_player() != self.seat:
                    self._say(f"{f.seat_name(state.current_player())} played {seen}")
            elif i >= self.shown:
                if state.is_chance_node():
                    self._say(f"Chance: {state.action_to_string(state.current_player(), action)}")
                elif state.current_player() != self.seat:
                    mover = f.seat_name(state.current_player())
                    self._say(f"{mover} played {f.action_label(state, action)}", style="bold")
            state.apply_action(action)
        self.shown = len(history)
        return state

    def show_turn(self, turn: Turn) -> list[str]:
        """Print what the screen shows before asking for a move (the new game, what happened since
        this seat last moved, whose move it is, the position) and return the legal moves' labels.
        Under hidden information every line is a function of the seat's information state: the
        ply, which counts moves this seat may not see, is not shown."""
        if self.formulation is None:  # a player is built per game: this is its first move
            order, f = "first" if turn.seat == 0 else "second", turn.formulation
            # the game as the formulation names it, and its rules: a disguise's own, never the game's
            self._say(f"\nNew game of {f.title()}: you are {f.seat_name(turn.seat)}, moving {order}")
            self._say(f.rules())
        f = self.formulation = turn.formulation
        self.seat = turn.seat
        self._announce(f, turn.state.history())
        ply = f" (ply {turn.ply})" if self.game.perfect_information else ""
        self._say(f"\n{f.seat_name(turn.seat)} (you) to move{ply}", style="bold")
        self._say(f.render_state(turn.state))
        return list(f.legal_labels(turn.state))

    async def act(self, turn: Turn) -> Decision:
        labels = self.show_turn(turn)
        f = turn.formulation
        legal = turn.state.legal_actions()
        if len(legal) == 1:  # nothing to choose: played without asking
            self._say(f"Your only move: {labels[0]} (played for you)", style="bold")
            self.shown = len(turn.state.history()) + 1
            return Decision(legal[0], [Attempt(reply=labels[0])])
        self._say("Legal moves: " + " | ".join(labels))
        attempts: list[Attempt] = []
        while True:
            self.console.print("Your move: ", end="")
            self.console.file.flush()
            try:
                text = await read_line()
            except EOFError:
                return Decision(None, attempts, failure="empty")
            except (
                asyncio.CancelledError
            ):  # Ctrl-C at the prompt: the run's closing line starts a line of its own
                self.console.print()
                raise
            try:
                action = f.parse_action(turn.state, text)
            except ParseError as err:
                attempts.append(
                    Attempt(reply=text, failure=getattr(err, "kind", "unparseable"), error=str(err))
                )
                self._say(f"{err}; choose one of: {', '.join(labels)}", style="red")
                continue
            attempts.append(Attempt(reply=text))
            self.shown = len(turn.state.history()) + 1
            return Decision(action, attempts)

    async def game_over(self, result: GameResult) -> None:
        """The last replies, the final position and who won."""
        self.seat = result.seat
        f = self.formulation or self.game.formulation("standard")
        end = self._announce(f, list(result.history))
        self._say("\nFinal position:", style="bold")
        board = f.render_view(end, result.seat)  # under hidden information: only what this seat knows
        if result.forfeit_by is not None:
            self._say(board)
            who = "You" if result.forfeit_by == result.seat else f.seat_name(result.forfeit_by)
            verdict = "you lose" if result.forfeit_by == result.seat else "you win"
            self._say(f"{who} failed to give a legal move and forfeit: {verdict}.", style="bold")
        else:
            mine = result.returns[result.seat]
            theirs = max(r for s, r in enumerate(result.returns) if s != result.seat)
            verdict = "You win." if mine > theirs else "You lose." if mine < theirs else "A draw."
            outcome = f.describe_outcome(end)
            # the result is said once, from this seat's side: in place of the board's own "X wins."
            if outcome in board:
                self._say(board.replace(outcome, verdict, 1))
            else:
                self._say(board)
                self._say(f"Game over. {verdict}", style="bold")
        graded = self._optimal_moves(result)
        if graded is not None and sum(graded[1:]) > 0:
            optimal, counted, forced = graded
            skipped = (
                f"; {count(forced, 'move')} where every choice was as good, not scored" if forced else ""
            )
            self._say(f"Optimal moves: {optimal} of {counted} (by the exact oracle{skipped}).")

    def _optimal_moves(self, result: GameResult) -> tuple[int, int, int] | None:
        """(optimal, counted, not counted) of this seat's moves by the game's exact oracle, the way
        the reports count them (a move where every choice has the same value is not counted);
        None for a game without an exact oracle or of hidden information."""
        if not self.game.perfect_information:
            return None
        truth = self.game.ground_truth
        if truth is None or not self.game.has_oracle:  # nothing, or an engine: no optimality to count
            return None
        try:
            grader = truth.grader(self.game)
        except Exception:  # noqa: BLE001 - no exact oracle for this game: nothing to report
            return None
        if grader is None:
            return None
        state = self.game.new_state()
        optimal = counted = forced = 0
        for action in result.history:
            if not state.is_chance_node() and state.current_player() == result.seat:
                grade = grader.judge(state, action).grade
                if grade is None or not grade.exact:  # an engine or an equilibrium: no optimality
                    return None
                if grade.informative:
                    counted += 1
                    optimal += grade.is_best(action)
                else:
                    forced += 1
            state.apply_action(action)
        return optimal, counted, forced
