"""The move kind of suite: decisions of a game, every legal move valued by the game's ground truth.

Built by a sampler, from a stored run or from chess puzzles (`build`); a position is put to a
player as a session puts its turn (`Player.act` on the state rebuilt from the history, chance
included), and the move is scored on the position's graded scale: optimal when as good as the best,
its loss best minus its value; a failure (no legal move) is not optimal and loses best minus worst.
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from markupsafe import Markup

from ..analysis.batch import noted
from ..errors import UserError
from ..games import GameDef, boards, get_game
from ..games.boards.base import VALUE_COLOURS, Marks
from ..harness.hooks import hooks_for
from ..players import RunContext, Turn, player_class
from ..render.table import Table
from .answer import Answer, Question, SuiteResults
from .build import build_suite
from .content import Position, Suite, field_whole
from .kinds import of_kind
from .report import BANDS, band_of, histogram_bar, player_label, players_table
from .study import asked_in

if TYPE_CHECKING:
    import pyspiel


def _colour(value: float, best: float, worst: float, tolerance: float) -> str:
    return "win" if best - value <= tolerance else "loss" if value - worst <= tolerance else "draw"


@lru_cache(maxsize=64)
def _uses_model(spec: str) -> bool:
    return player_class(spec)[1].uses_model


class MoveKind:
    """Positions of moves: the default kind, every game with a ground truth that no other kind claims."""

    name = "moves"

    def claims(self, game_spec: str) -> bool:
        return False  # the default (`kinds.DEFAULT`): every game no other kind claims

    def game(self, game_spec: str) -> GameDef:
        return get_game(game_spec)

    def build(
        self,
        name: str,
        game_spec: str,
        positions: int,
        *,
        sampler: str | None,
        seed: int,
        formulation: str,
        limit: str,
        from_run: str | None,
        store: Path | None,
        from_puzzles: Path | None,
        margin: float | None,
    ) -> Suite:
        if limit.strip():
            _check_limit(game_spec, limit)
        return build_suite(
            name,
            game_spec,
            positions,
            sampler=sampler,
            seed=seed,
            formulation=formulation,
            limit=limit,
            from_run=from_run,
            store=store,
            from_puzzles=from_puzzles,
            margin=margin,
        )

    def check(self, pos: Position, state: pyspiel.State) -> None:
        """Moves, each a different legal move, every legal move valued, and `chance` a share."""
        if not pos.moves:
            raise ValueError("'moves' is empty; a position values every legal move")
        actions = [m.action for m in pos.moves]
        if len(set(actions)) != len(actions):
            raise ValueError(f"'moves' values a move twice (actions {sorted(actions)})")
        legal = sorted(state.legal_actions())
        if sorted(actions) != legal:
            raise ValueError(f"'moves' values actions {sorted(actions)}; the legal moves are {legal}")
        field_whole(pos.features, "legal")
        chance = pos.features.get("chance")
        if isinstance(chance, bool) or not isinstance(chance, int | float) or not 0 <= chance <= 1:
            raise ValueError(f"'features.chance' must be a share between 0 and 1 (got {chance!r})")

    def player(self, game_spec: str, spec: str) -> str | None:
        game = get_game(game_spec)
        hooks_for(game).player(spec, game, 0, 0, RunContext()).close()
        _, cls, options = player_class(spec)
        return cls.memory_hash(options, game)

    def uses_model(self, game_spec: str, spec: str) -> bool:
        return _uses_model(spec)

    async def ask(self, question: Question, context: RunContext) -> Answer:
        """The move the player makes, through `Player.act` as in a session, scored on the graded scale."""
        q, pos = question, question.position
        game, formulation = asked_in(q.game, q.formulation)
        turn = Turn(game, formulation, pos.state(game), pos.mover, pos.ply, q.key)
        state = turn.state.clone()
        player = hooks_for(game).player(q.player, game, pos.mover, q.seed, replace(context, job_key=q.key))
        t0 = time.perf_counter()
        try:
            decision = await player.act(turn)
        finally:
            player.close()
        elapsed = time.perf_counter() - t0
        grade = pos.grade()
        action, failure = decision.action, decision.failure
        if action is not None and action not in grade.expected:
            action, failure = None, "illegal"
        attempts = decision.attempts
        costs = [a.cost for a in attempts if a.cost is not None]
        final = attempts[-1] if attempts else None
        worst = min(grade.expected.values())
        return Answer(
            position=pos.index,
            player=q.player,
            position_id=pos.id,
            action=action,
            label=None if action is None else formulation.action_label(state, action),
            optimal=action is not None and grade.is_best(action),
            loss=grade.loss(action) if action is not None else grade.best - worst,
            span=grade.span,
            chance=float(pos.features["chance"]),
            features=pos.features,
            failure=failure,
            prompt=None if final is None else final.prompt,
            reply=None if final is None else final.reply,
            input_tokens=sum(a.input_tokens for a in attempts),
            output_tokens=sum(a.output_tokens for a in attempts),
            calls=sum(1 for a in attempts if a.prompt is not None and not a.cached),
            cache_hits=sum(1 for a in attempts if a.cached),
            cost=sum(costs) if costs else None,
            elapsed=elapsed,
            memory=q.memory,
            repeat=q.repeat,
        )

    def tables(self, results: SuiteResults) -> dict[str, Table]:
        """The players table (optimal rate, loss, skill above chance, bands), its batch note over
        every player of `results`."""
        players = [a.player for _, answers in results.runs for a in answers]
        return {"players": noted(players_table(of_kind(results, self)), players, "players")}

    def difficulty(self, suite: Suite) -> list[str]:
        """How many positions fall in each band of chance, and how many legal moves they have."""
        lines = ["difficulty (chance a uniformly random legal move is optimal):"]
        counts = {name: 0 for name, _, _ in BANDS}
        for p in suite.positions:
            counts[band_of(float(p.features["chance"]))] += 1
        most = max(counts.values())
        for name, low, high in BANDS:
            lines.append(
                f"  {name:<7}({low:.2f}, {high:.2f}] {counts[name]:>5} {histogram_bar(counts[name], most)}"
            )
        legal: dict[int, int] = {}
        for p in suite.positions:
            legal[int(p.features["legal"])] = legal.get(int(p.features["legal"]), 0) + 1
        lines.append("legal moves:")
        top = max(legal.values())
        lines.extend(f"  {k:>4} {legal[k]:>5} {histogram_bar(legal[k], top)}" for k in sorted(legal))
        return lines

    def page(self, suite: Suite, pos: Position, answers: list[Answer]) -> dict[str, object]:
        """The board with every legal move coloured by its value, and every player's move and verdict."""
        game = get_game(suite.game)
        formulation = game.formulation(suite.formulation)
        state = pos.state(game)
        grade = pos.grade()
        worst = min(grade.expected.values())
        classes = {m.action: _colour(m.value, grade.best, worst, grade.tolerance) for m in pos.moves}
        svg = boards.draw(suite.game, state, Marks(values=classes))
        return {
            "index": pos.index,
            "mover": formulation.seat_name(pos.mover),
            "ply": pos.ply,
            "legal": pos.features["legal"],
            "optimal": pos.features["optimal"],
            "svg": Markup(svg) if svg else None,
            "view": formulation.render_state(state),
            "moves": [
                {"label": m.label, "value": f"{m.value:.3g}", "colour": VALUE_COLOURS[classes[m.action]]}
                for m in pos.moves
            ],
            "answers": [
                {
                    "player": player_label(a),
                    "label": a.label or f"failure ({a.failure})",
                    "verdict": "optimal" if a.optimal else f"loss {a.loss:.3g}",
                }
                for a in answers
            ],
        }


MOVES = MoveKind()


def _check_limit(game: str, limit: str) -> None:
    """`--limit` before any game is drawn: an engine's search limit, so refused for a game graded by an
    exact table or an equilibrium (which take none); a chess engine's read as `--score` reads it."""
    from ..oracles.engine import parse_limit

    truth = get_game(game).ground_truth
    if truth is None:  # build_suite says why
        return
    if truth.kind != "engine":
        raise UserError(
            f"--limit '{limit}' is an engine's search limit; '{game}' is graded by its {truth.name}, "
            "which takes none: leave --limit out"
        )
    if truth.chess:
        parse_limit(limit, "--limit")
