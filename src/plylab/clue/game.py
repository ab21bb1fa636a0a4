"""Clue as one of plylab's games: played by the one session loop (`harness.session`), like every game.

What Clue adds to the loop comes through the game's hooks (`harness.hooks`): its players (the Clue
family: a seat sees its `ClueView`, and a card is shown by rule), its seeded deal, and its
annotations: each turn's compound decision (suggest or accuse with its cards, the envelope belief
and holdings the player states) judged by the referee, and after the turn every seat's standing
against the oracle. The annotation sits on the turn's first move; the game's summary (envelope,
hands, winner, end) is the game's `extra`. Nothing of Clue's has its own loop or tables.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import pyspiel

from ..games.base import GAMES, Formulation, GameDef
from ..harness.hooks import GameHooks, register_hooks
from ..players.base import Decision, Player, RunContext, Turn
from ..specs import Params
from .base import ClueDecision, CluePlayer, make_clue_player
from .engine import DEFAULT_TURN_LIMIT, GAME_NAME, ClueGame, ClueState
from .events import Accusation, Suggestion
from .prompts import render_view, rules_text
from .referee import Referee

if TYPE_CHECKING:
    from ..harness.rows import MoveRow

GAME = "clue"


class ClueText(Formulation[Params]):
    """The text a seat reads: the rules and its own view (its information state), never the deal."""

    name = "text"

    def rules(self) -> str:
        engine = cast(ClueGame, self.game.engine)
        return rules_text(engine.deck, engine.players)

    def render_state(self, state: pyspiel.State) -> str:
        return self.render_view(state, state.current_player())

    def render_view(self, state: pyspiel.State, seat: int) -> str:
        return render_view(cast(ClueState, state).view(seat))

    def render_whole(self, state: pyspiel.State) -> str | None:
        return str(state)  # the envelope and every hand: for a replay's reader only

    def seen_label(self, state: pyspiel.State, action: int, seat: int) -> str | None:
        """A shown card is seen by the suggester and the disprover; the others see that one was shown."""
        clue = cast(ClueState, state)
        if clue.is_chance_node():
            return None  # the deal: a seat learns its own hand from its view
        if clue.pending is not None and seat not in (clue.pending[0], clue.pending[2]):
            return f"Player {clue.pending[2] + 1} showed a card"
        return self.action_label(state, action)

    def action_label(self, state: pyspiel.State, action: int) -> str:
        return str(state.action_to_string(state.current_player(), action))


class ClueSeat(Player[Params]):
    """A Clue player at the session's table: its turn is a `ClueDecision` on its own view, played as
    one engine action; when it must answer a suggestion it shows a card by the rule (`CluePlayer.show`)."""

    name = "clue-seat"
    family = "clue"
    command = "plylab clue run"

    def __init__(self, inner: CluePlayer[Any], game: GameDef) -> None:
        super().__init__(inner.spec, Params(), game, inner.seed, inner.context)
        self.inner = inner
        self.uses_model = type(inner).uses_model  # type: ignore[misc]  # the wrapped player's

    async def act(self, turn: Turn) -> Decision:
        state = cast(ClueState, turn.state)
        view = state.view(turn.seat)
        if state.pending is not None:
            return Decision(self.inner.show(view))
        decision = await self.inner.act(view)
        engine = cast(ClueGame, state.get_game())
        if decision.kind == "suggest" and decision.cards is not None:
            action = engine.suggest_action(decision.cards)
        elif decision.kind == "accuse" and decision.cards is not None:
            action = engine.accuse_action(decision.cards)
        else:  # a pass, or a reply that named no cards: a recorded pass
            decision.kind, decision.cards = "pass", None
            action = engine.pass_action
        attempts = [decision.call] if decision.call is not None else []
        return Decision(action, attempts, failure=decision.failure, note={**decision.note}, stated=decision)

    def close(self) -> None:
        self.inner.close()


class ClueAnnotator:
    """The referee at the table: judges what each turn states, then every seat's standing after it."""

    def __init__(self) -> None:
        self.referee: Referee | None = None
        self.open: dict[str, Any] | None = None  # the annotation of the turn being played

    def before(self, state: pyspiel.State, seat: int, decision: Decision) -> dict[str, Any] | None:
        stated = decision.stated
        if not isinstance(stated, ClueDecision):  # a shown card: part of the suggester's turn
            return None
        clue = cast(ClueState, state)
        if self.referee is None:  # dealt by now: the referee sees every hand
            self.referee = Referee(clue)
        d = stated.deductions
        self.open = {
            "turn": clue.turn,
            "round": clue.round,
            "action": stated.kind,
            "cards": list(stated.cards) if stated.cards else None,
            "envelope_belief": None if d is None else [d.envelope.get(i) for i in range(3)],
            "claims": [list(c) for c in self.referee.judge(seat, d)],
            "ready": stated.ready,
        }
        return self.open

    def after(self, state: pyspiel.State) -> None:
        clue = cast(ClueState, state)
        if clue.pending is not None or self.open is None or self.referee is None:
            return  # the disprover shows a card before the turn ends
        event = clue.events[-1]
        if isinstance(event, Suggestion):
            self.open.update(disprover=event.disprover, shown=event.shown)
        elif isinstance(event, Accusation):
            self.open["correct"] = event.correct
        snaps = self.referee.after_turn(self.open["turn"])
        self.open["knowledge"] = [[s.oracle_known, s.oracle_solved, s.matrix_ready] for s in snaps]
        self.open = None

    def end(self, state: pyspiel.State, moves: list[MoveRow]) -> dict[str, Any] | None:
        clue = cast(ClueState, state)
        envelope = sorted(clue.envelope)
        solution_turn = next(
            (e.turn for e in clue.events if isinstance(e, Suggestion) and sorted(e.cards) == envelope),
            None,
        )
        if clue.winner is not None:
            reason = "solved"
        elif len(clue.out) == clue.n:
            reason = "all_out"
        else:
            reason = "turn_limit"
        return {
            "envelope": envelope,
            "hands": [sorted(h) for h in clue.hands],
            "winner": clue.winner,
            "end_reason": reason,
            "turns": sum(1 for m in moves if m.annotation is not None),
            "rounds": clue.round,
            "solution_suggested_turn": solution_turn,
        }

    def close(self) -> None:
        if self.referee is not None:
            self.referee.close()


class ClueHooks(GameHooks):
    """Clue's players, deal and referee for the one session loop."""

    def player(self, spec: str, game: GameDef, seat: int, job_seed: int, context: RunContext) -> Player[Any]:
        from ..seeds import clue_seed_v1, derive_seed

        # runs stored before seeds were shared keep their seats' old streams (see study.py)
        seat_seed = clue_seed_v1 if context.extra.get("clue_seeds") == "v1" else derive_seed
        return ClueSeat(make_clue_player(spec, seat, seat_seed(job_seed, seat), context), game)

    def chance(self, game: GameDef, job_seed: int) -> Callable[[pyspiel.State], int]:
        """The deal Clue has always made: one stream from the game seed, which first shuffled the
        seating (the study seats the players with the same shuffle), then deals card by card."""
        rng = random.Random(job_seed)
        rng.shuffle(list(range(cast(ClueGame, game.engine).players)))  # the seating's draws
        return lambda state: rng.choice(cast(ClueState, state).chance_outcomes())[0]

    def annotator(self, game: GameDef, state: pyspiel.State) -> ClueAnnotator:
        return ClueAnnotator()


def seating(specs: list[str], seed: int) -> list[str]:
    """The players in seat order for a game seed (the first draws of the game's stream)."""
    seats = list(specs)
    random.Random(seed).shuffle(seats)
    return seats


def game_name(players: int, turn_limit: int) -> str:
    """The game as a plan names it: `clue` at six players and 150 turns, else with its parameters."""
    params = [f"players={players}"] if players != 6 else []
    params += [f"turn_limit={turn_limit}"] if turn_limit != DEFAULT_TURN_LIMIT else []
    return GAME + (":" + ",".join(params) if params else "")


CLUE = GAMES.add_unlisted(  # found by `get_game("clue")`, not listed among `plylab run`'s games
    GameDef(
        name=GAME,
        title="Clue (text version, no board)",
        openspiel_name=GAME_NAME,
        summary="six-player deduction with hidden hands; `plylab clue run` plays it",
    )
)
register_hooks(CLUE, ClueHooks())
CLUE.add_formulation(ClueText)
