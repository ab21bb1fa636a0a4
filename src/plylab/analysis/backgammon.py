"""Backgammon's figures per matchup, as GNU Backgammon reports a player's checker play.

From the grades gnubg gave (oracles/gnubg.py: the mover's cubeless equity after every legal play as
the game counts it, ranked as gnubg's analysis ranks them, by its own money equity, at the run's
level, gnubg's default analysis level unless `--score plies=N`), for the matchup's player's
decisions: the error per decision in millipoints (thousandths of a point of equity), gnubg's
performance rating PR (the mean error per unforced decision x 500) and the decisions gnubg would
mark doubtful, bad and very bad: an error above gnubg 1.07's default analysis thresholds of 0.03,
0.06 and 0.12 points (`show analysis`). A decision is gnubg's: one turn, so a double's two OpenSpiel
halves are one decision whose error is the two halves' sum; it is unforced where the turn has more
than one distinct play, as gnubg counts it (a forced play counts in neither the PR nor the marks,
003 l.62). Errors are in the game's own points (OpenSpiel's `scoring_type`); there is no cube, so no
cube errors.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..jsontypes import JSONObject
from ..oracles.graded import Grade
from ..players.canonical import canonical_spec
from ..render.table import Table

if TYPE_CHECKING:
    from ..harness.store import Store

DOUBTFUL, BAD, VERY_BAD = 0.03, 0.06, 0.12  # gnubg 1.07's default analysis thresholds (`show analysis`)
PR_SCALE = 500  # gnubg's PR: mean error per unforced decision x 500
Key = tuple[str, str, str, str, str]  # run, game, formulation, player, opponent


def skill(error: float) -> str:
    """gnubg's mark for a checker play's error: 'very bad', 'bad', 'doubtful' or '' (none)."""
    if error > VERY_BAD:
        return "very bad"
    if error > BAD:
        return "bad"
    return "doubtful" if error > DOUBTFUL else ""


@dataclass
class BackgammonRow:
    """A matchup's checker play from the player's side."""

    run: str
    game: str
    formulation: str
    player: str
    opponent: str
    games: int = 0
    decisions: int = 0  # every graded turn of the player's (a double's two halves: one)
    unforced: int = 0  # those with more than one distinct play
    error: float = 0.0  # total equity given up, in points
    doubtful: int = 0
    bad: int = 0
    very_bad: int = 0
    source: str = ""
    level: str = ""  # the level in words (oracles.gnubg.Level.describe)

    @property
    def millipoints_per_decision(self) -> float | None:
        return 1000 * self.error / self.decisions if self.decisions else None

    @property
    def pr(self) -> float | None:
        return PR_SCALE * self.error / self.unforced if self.unforced else None

    def to_json(self) -> JSONObject:
        return {
            "run": self.run,
            "game": self.game,
            "formulation": self.formulation,
            "player": self.player,
            "opponent": self.opponent,
            "games": self.games,
            "decisions": self.decisions,
            "unforced": self.unforced,
            "error": self.error,
            "millipoints_per_decision": self.millipoints_per_decision,
            "pr": self.pr,
            "doubtful": self.doubtful,
            "bad": self.bad,
            "very_bad": self.very_bad,
            "source": self.source,
            "level": self.level,
        }


def _unforced(grade: Grade) -> bool:
    """gnubg's unforced: more than one distinct play of the turn (grades before that was stored:
    the plays differ in equity)."""
    plays = grade.detail.get("plays")
    return grade.informative if plays is None else int(plays) > 1


def _level(grade: Grade) -> str:
    from ..oracles.gnubg import ANALYSIS, LEVEL_KEYS

    text = str(grade.detail.get("level", f"plies={grade.detail.get('plies', 0)}"))
    known = {lv.text(): lv for lv in (*LEVEL_KEYS.values(), ANALYSIS)}
    return known[text].describe() if text in known else text


def backgammon_rows(store: Store, run: str | None = None) -> list[BackgammonRow]:
    """Per (run, game, formulation, player, opponent), the player's checker play; [] without gnubg grades."""
    return list(_grouped(store, run, by_game=False).values())


def backgammon_games(store: Store, run: str | None = None) -> dict[int, BackgammonRow]:
    """Per stored game (by id), its player's checker play counted as the matchup's is, so a game list
    and the matchup's table say the same decisions and errors; {} without gnubg grades."""
    return {k: row for k, row in _grouped(store, run, by_game=True).items() if isinstance(k, int)}


def _grouped(store: Store, run: str | None, by_game: bool) -> dict[Key | int, BackgammonRow]:
    runs = {r.id: r.name for r in store.runs(run)}
    rows: dict[Key | int, BackgammonRow] = {}
    seen: dict[Key | int, set[int]] = defaultdict(set)
    turns: list[tuple[BackgammonRow, list[float], bool]] = []  # the row, the turn's errors, unforced
    last: dict[int, int] = {}  # per game, the turn a double's second half belongs to
    for m in store.frame(runs).gnubg_moves():
        if m.seat != m.player_seat:
            continue
        matchup = (
            runs[m.run_id],
            m.game,
            m.formulation,
            canonical_spec(m.player),
            canonical_spec(m.opponent),
        )
        key: Key | int = m.game_id if by_game else matchup
        row = rows.setdefault(key, BackgammonRow(*matchup))
        seen[key].add(m.game_id)
        grade = Grade.from_json(m.grade)
        error = grade.loss(int(grade.detail["play"]))
        row.source, row.level = grade.source, _level(grade)
        at = last.get(m.game_id)
        if grade.detail.get("half") == 2 and at is not None:
            turns[at][1].append(error)
            continue
        last[m.game_id] = len(turns)
        turns.append((row, [error], _unforced(grade)))
    for row, errors, unforced in turns:
        row.decisions += 1
        if not unforced:
            continue
        error = sum(errors)
        row.unforced += 1
        row.error += error
        mark = skill(error)
        if mark:
            setattr(row, mark.replace(" ", "_"), getattr(row, mark.replace(" ", "_")) + 1)
    for key, row in rows.items():
        row.games = len(seen[key])
    return rows


def backgammon_table(rows: list[BackgammonRow]) -> Table:
    """The checker-play figures as a table (every report format), gnubg's level and definitions under it."""
    from ..players.canonical import printed_run_name

    header = ["run", "game", "formulation", "player", "opponent", "games", "decisions", "unforced"]
    header += ["error/decision (mp)", "PR", "doubtful", "bad", "very bad"]

    def num(v: float | None, digits: int) -> str:
        return "–" if v is None else f"{v:.{digits}f}"

    body = [
        [
            printed_run_name(r.run),
            r.game,
            r.formulation,
            r.player,
            r.opponent,
            str(r.games),
            str(r.decisions),
            str(r.unforced),
            num(r.millipoints_per_decision, 1),
            num(r.pr, 1),
            str(r.doubtful),
            str(r.bad),
            str(r.very_bad),
        ]
        for r in rows
    ]
    sources = sorted({r.source for r in rows if r.source})
    levels = sorted({r.level for r in rows if r.level})
    notes = [
        f"graded by {', '.join(sources) or 'gnubg'}: the mover's cubeless equity after each play as the game "
        "counts it (winloss_scoring: 2p - 1, gammons only where its scoring_type counts them; OpenSpiel's "
        "backgammon has no cube) against the best of the plays gnubg took deepest, ranked by gnubg's own money "
        "equity; the player's decisions only",
        *[f"level: {text}" for text in levels],
        f"a decision is a turn (a double's two halves are one); PR: mean error per unforced decision x "
        f"{PR_SCALE}; doubtful / bad / very bad: an error above {DOUBTFUL} / {BAD} / {VERY_BAD} points "
        "(gnubg 1.07's analysis thresholds); a forced play counts in neither",
    ]
    data = {"backgammon": [r.to_json() for r in rows]}
    return Table(header, body, notes=notes, title="Backgammon, graded by GNU Backgammon", data=data)
