"""The store's games and moves as reports and analysis read them: typed frames over its tables.

`RunsFrame` (`Store.frame`): some runs' games and their players' moves, summed per game, counted per
matchup and outcome, and the moves an engine graded. `MatchupMoves` (`Store.matchup_moves`): one
matchup's player moves, as its page (reports/matchups.py) asks of them: how many were optimal (or
how much they lost) at each move number, where it went wrong most and with which move. Every
question is SQL, summed by SQLite, so a reader holds a few rows, never every stored move; every row
is typed (rows.py). The store's write path and its run bookkeeping stay in store.py.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TypeVar

from ..oracles.graded import TOLERANCE  # a stored grade without `tolerance` has this one
from .rows import (
    USAGE,
    CostlyDecision,
    CostlyMove,
    EngineMove,
    GameRow,
    GameTotals,
    ListedGame,
    Matchup,
    MatchupCount,
    ModelText,
    MoveRow,
    OutcomeCount,
    PlyLoss,
    PlyOptimality,
    WorstState,
    WrongMove,
    from_row,
    rows_of,
)

# A move its ground truth calls non-optimal: a loss on the graded scale (oracles.graded) above the
# grade's own tolerance (an exact oracle's or an engine's 1e-9, an equilibrium's target), and for a
# move stored before grades were (no loss), the exact oracle's verdict in an informative position.
NON_OPTIMAL = f"""(CASE WHEN m.loss IS NOT NULL
    THEN m.loss > COALESCE(json_extract(m.grade, '$.tolerance'), {TOLERANCE})
    ELSE m.informative = 1 AND m.optimal = 0 END)"""

# One row per game with its player's moves summed by SQLite, so a report holds one small row per
# game at a time instead of every stored move (prompts, replies, states).
GAME_TOTALS = f"""
SELECT g.id, g.run_id, g.job_key, g.idx, g.game, g.formulation, g.player, g.opponent, g.player_seat,
       g.outcome, g.failure_kind, g.num_moves,
       COUNT(m.action) AS player_moves,
       TOTAL(m.action IS NOT NULL AND m.informative = 1) AS scored,
       TOTAL(CASE WHEN m.action IS NOT NULL AND m.informative = 1 THEN m.optimal END) AS optimal,
       TOTAL(m.action IS NOT NULL AND m.informative_score = 1) AS scored_s,
       TOTAL(CASE WHEN m.action IS NOT NULL AND m.informative_score = 1 THEN m.optimal_score END) AS optimal_s,
       TOTAL(m.action IS NOT NULL AND m.loss IS NOT NULL) AS graded,
       TOTAL(m.action IS NOT NULL AND {NON_OPTIMAL}) AS nonoptimal,
       TOTAL(CASE WHEN m.action IS NOT NULL THEN m.loss END) AS loss_sum,
       {", ".join(f"TOTAL(m.{k}) AS {k}" for k in USAGE)},
       SUM(m.cost) AS cost,
       TOTAL(CASE WHEN m.action IS NOT NULL THEN m.output_tokens END) AS played_tokens,
       TOTAL(m.calls + m.cache_hits > 0) AS model_moves,
       TOTAL(CASE WHEN m.calls + m.cache_hits > 0 THEN m.output_tokens END) AS model_tokens,
       TOTAL(CASE WHEN m.calls + m.cache_hits > 0 THEN m.output_tokens * m.output_tokens END) AS model_tokens_sq,
       json_extract(g.returns, '$[' || g.player_seat || ']') AS payoff
FROM games g LEFT JOIN moves m ON m.game_id = g.id AND m.seat = g.player_seat
WHERE g.run_id IN (SELECT value FROM json_each(?))
GROUP BY g.id
ORDER BY g.run_id, g.id
"""

MODEL_TEXTS = """
SELECT g.run_id, g.game, g.formulation, g.player, g.opponent, m.reply, m.reasoning
FROM moves m JOIN games g ON g.id = m.game_id
WHERE g.run_id IN (SELECT value FROM json_each(?)) AND m.seat = g.player_seat AND m.calls + m.cache_hits > 0
"""

# A move graded by a chess engine (its grade names the centipawn loss: analysis/chess.py).
ENGINE_MOVES = """
SELECT m.game_id, g.run_id, g.job_key, g.idx, g.game, g.formulation, g.player, g.opponent, g.player_seat,
       m.seat, m.ply, m.grade
FROM moves m JOIN games g ON g.id = m.game_id
WHERE g.run_id IN (SELECT value FROM json_each(?)) AND g.game IN (SELECT value FROM json_each(?))
  AND json_extract(m.grade, '$.detail.cp_loss') IS NOT NULL
ORDER BY g.id, m.ply
"""

# A move graded by gnubg (backgammon): its grade names the play it graded (analysis/backgammon.py).
GNUBG_MOVES = """
SELECT m.game_id, g.run_id, g.job_key, g.idx, g.game, g.formulation, g.player, g.opponent, g.player_seat,
       m.seat, m.ply, m.grade
FROM moves m JOIN games g ON g.id = m.game_id
WHERE g.run_id IN (SELECT value FROM json_each(?)) AND g.game LIKE 'backgammon%'
  AND json_extract(m.grade, '$.detail.play') IS NOT NULL
ORDER BY g.id, m.ply
"""

MATCHUP_COUNTS = """
SELECT run_id, game, formulation, player, opponent, COUNT(*) AS games, SUM(num_moves) AS moves
FROM games WHERE run_id IN (SELECT value FROM json_each(?))
GROUP BY run_id, game, formulation, player, opponent ORDER BY run_id, MIN(id)
"""

# The notes of the runs' player moves that mention `key` (a learning phase's recall flags).
PLAYER_NOTES = """
SELECT m.note FROM moves m JOIN games g ON g.id = m.game_id
WHERE g.run_id IN (SELECT value FROM json_each(?)) AND m.seat = g.player_seat AND m.note LIKE '%"' || ? || '"%'
"""

OUTCOME_COUNTS = """
SELECT game, player, opponent, outcome, COUNT(*) AS n FROM games
WHERE run_id IN (SELECT value FROM json_each(?)) GROUP BY game, player, opponent, outcome
"""


# A matchup's player's scored moves: by move number, worst states, wrong moves.
_MATCHUP_MOVES = """g.run_id = ? AND g.game = ? AND g.formulation = ?
AND g.player IN (SELECT value FROM json_each(?)) AND g.opponent IN (SELECT value FROM json_each(?))
AND m.seat = g.player_seat AND m.informative = 1 AND m.action IS NOT NULL"""

BY_MOVE = f"""SELECT m.ply / 2 AS k, COUNT(*) AS n, TOTAL(m.optimal) AS ok
FROM moves m JOIN games g ON g.id = m.game_id WHERE {_MATCHUP_MOVES} GROUP BY k ORDER BY k"""

WORST_STATES = f"""SELECT m.state, COUNT(*) AS seen, TOTAL(m.optimal = 0) AS wrong,
       MIN(m.values_json) AS values_json, MIN(m.scores_json) AS scores_json
FROM moves m JOIN games g ON g.id = m.game_id WHERE {_MATCHUP_MOVES}
GROUP BY m.state HAVING wrong > 0 ORDER BY wrong DESC, seen DESC LIMIT ?"""

WRONG_MOVE = f"""SELECT m.action, m.action_label, COUNT(*) AS n FROM moves m JOIN games g ON g.id = m.game_id
WHERE {_MATCHUP_MOVES} AND m.state = ? AND m.optimal = 0 GROUP BY m.action ORDER BY n DESC, m.action LIMIT 1"""

# The same on the graded scale (every ground truth: an exact oracle, an equilibrium, an engine): the
# player's graded moves, a decision named by its information set where the grade names one (poker:
# what the player knew), else by its state.
_GRADED_MOVES = """g.run_id = ? AND g.game = ? AND g.formulation = ?
AND g.player IN (SELECT value FROM json_each(?)) AND g.opponent IN (SELECT value FROM json_each(?))
AND m.seat = g.player_seat AND m.action IS NOT NULL AND m.loss IS NOT NULL"""
_DECISION = "COALESCE(json_extract(m.grade, '$.detail.infoset'), m.state)"

LOSS_BY_MOVE = f"""SELECT m.ply / 2 AS k, COUNT(*) AS n, TOTAL(m.loss) AS loss, TOTAL({NON_OPTIMAL}) AS bad,
       MIN(json_extract(m.grade, '$.unit')) AS unit
FROM moves m JOIN games g ON g.id = m.game_id WHERE {_GRADED_MOVES} GROUP BY k ORDER BY k"""

COSTLY_DECISIONS = f"""SELECT {_DECISION} AS decision, MIN(m.state) AS state, COUNT(*) AS seen,
       TOTAL({NON_OPTIMAL}) AS wrong, TOTAL(m.loss) AS lost
FROM moves m JOIN games g ON g.id = m.game_id WHERE {_GRADED_MOVES}
GROUP BY decision HAVING wrong > 0 ORDER BY lost DESC, wrong DESC, decision LIMIT ?"""

COSTLY_MOVE = f"""SELECT m.action, m.action_label, COUNT(*) AS n, TOTAL(m.loss) AS lost, MIN(m.grade) AS grade
FROM moves m JOIN games g ON g.id = m.game_id
WHERE {_GRADED_MOVES} AND {_DECISION} = ? AND {NON_OPTIMAL}
GROUP BY m.action ORDER BY lost DESC, m.action LIMIT 1"""


def json_ids(ids: Iterable[int]) -> tuple[str]:
    """Ids as the one JSON argument the queries read them from (`json_each`)."""
    return (json.dumps(list(ids)),)


Named = TypeVar("Named", GameRow, MoveRow, GameTotals, ListedGame, ModelText, OutcomeCount)


def named(rows: Iterable[Named]) -> Iterator[Named]:
    """Rows with their player and opponent under their canonical names (`players.canonical`).

    Games are written under them; an older store kept the spelling it was given, and is mapped here,
    once for every reader, so analysis, reports and exports read names as the store gives them.
    (The matchup keys, `matchup_counts` and `matchup_spans`, keep every stored spelling: they are
    what the store is queried by.)"""
    from ..players.canonical import canonical_spec  # the player registry loads only for a reader

    for r in rows:
        player = canonical_spec(r.player) if r.player else r.player
        if isinstance(r, MoveRow):
            yield r if player == r.player else replace(r, player=player)
            continue
        opponent = canonical_spec(r.opponent)
        yield (
            r
            if (player, opponent) == (r.player, r.opponent)
            else replace(r, player=player, opponent=opponent)
        )


class RunsFrame:
    """Some runs' games and moves in a store, read through the store's connection."""

    def __init__(self, conn: sqlite3.Connection, run_ids: Iterable[int]) -> None:
        self._conn = conn
        self._ids = json_ids(run_ids)

    def game_totals(self) -> Iterator[GameTotals]:
        """Per game (in store order): its identity, outcome, and its player's moves summed, streamed."""
        return named(rows_of(GameTotals, self._conn.execute(GAME_TOTALS, self._ids)))

    def model_texts(self) -> Iterator[ModelText]:
        """The player's model moves' replies and traces, streamed."""
        return named(rows_of(ModelText, self._conn.execute(MODEL_TEXTS, self._ids)))

    def matchup_counts(self) -> list[MatchupCount]:
        """Games and moves per (run, game, formulation, player, opponent), in store order."""
        return list(rows_of(MatchupCount, self._conn.execute(MATCHUP_COUNTS, self._ids)))

    def outcome_counts(self) -> list[OutcomeCount]:
        """Games per (game, player, opponent, outcome), counted by SQLite."""
        return list(named(rows_of(OutcomeCount, self._conn.execute(OUTCOME_COUNTS, self._ids))))

    def player_notes(self, key: str) -> Iterator[str]:
        """The JSON notes of the player's moves whose note names `key` (e.g. REAPER's "recall")."""
        return (note for (note,) in self._conn.execute(PLAYER_NOTES, (*self._ids, key)))

    def engine_moves(self, games: Iterable[str]) -> Iterator[EngineMove]:
        """Every move an engine graded in these games (chess and its variants), by game and ply,
        streamed (analysis/chess.py); the games named first, so a store without them costs nothing."""
        return rows_of(EngineMove, self._conn.execute(ENGINE_MOVES, (*self._ids, json.dumps(list(games)))))

    def gnubg_moves(self) -> Iterator[EngineMove]:
        """Every backgammon move gnubg graded in these runs, by game and ply (analysis/backgammon.py)."""
        return rows_of(EngineMove, self._conn.execute(GNUBG_MOVES, self._ids))


class MatchupMoves:
    """One matchup's player moves in a store (every stored spelling of its two specs), read through
    the store's connection: exact optimality (`by_move`, `worst_states`, `wrong_move`) and the graded
    scale (`loss_by_move`, `costly_decisions`, `costly_move`)."""

    def __init__(self, conn: sqlite3.Connection, m: Matchup) -> None:
        self._conn = conn
        self._args = (
            m.run_id,
            m.game,
            m.formulation,
            json.dumps(list(m.players)),
            json.dumps(list(m.opponents)),
        )

    def by_move(self) -> list[PlyOptimality]:
        """The scored moves per move number: how many, how many optimal."""
        return list(rows_of(PlyOptimality, self._conn.execute(BY_MOVE, self._args)))

    def worst_states(self, limit: int) -> list[WorstState]:
        """The `limit` states where the player most often chose a non-optimal move."""
        rows = self._conn.execute(WORST_STATES, (*self._args, limit)).fetchall()
        return [from_row(WorstState, r) for r in rows]

    def wrong_move(self, state: str) -> WrongMove | None:
        """The non-optimal move the player chose most often in `state`."""
        row = self._conn.execute(WRONG_MOVE, (*self._args, state)).fetchone()
        return None if row is None else from_row(WrongMove, row)

    def loss_by_move(self) -> list[PlyLoss]:
        """The graded moves per move number: how many, their loss, the non-optimal."""
        return list(rows_of(PlyLoss, self._conn.execute(LOSS_BY_MOVE, self._args)))

    def costly_decisions(self, limit: int) -> list[CostlyDecision]:
        """The `limit` decisions (information sets, else states) where the player lost the most on
        the graded scale, each with a non-optimal move."""
        rows = self._conn.execute(COSTLY_DECISIONS, (*self._args, limit)).fetchall()
        return [from_row(CostlyDecision, r) for r in rows]

    def costly_move(self, decision: str) -> CostlyMove | None:
        """The non-optimal move that lost the player the most at `decision`, with a grade of it."""
        row = self._conn.execute(COSTLY_MOVE, (*self._args, decision)).fetchone()
        return None if row is None else from_row(CostlyMove, row)
