"""A matchup's moves as its page reads them: one typed frame over the store's `moves` table.

A matchup's page (reports/matchups.py) asks six questions of the same moves, its player's in its
games: how many were optimal (or how much they lost) at each move number, where it went wrong most
and with which move. They are one frame, `MatchupMoves`, which `Store.matchup_moves` hands out; the
questions are SQL, summed by SQLite, so a page holds a few rows, never every stored move.
"""

from __future__ import annotations

import json
import sqlite3

from ..oracles.graded import TOLERANCE  # a stored grade without `tolerance` has this one
from .rows import (
    CostlyDecision,
    CostlyMove,
    Matchup,
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
