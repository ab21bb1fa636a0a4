"""How a plan's moves are graded, settled before it plays.

`--score` once for the whole plan: `on` (each game graded by its own truth, an engine at its default
limit), `off` (no move graded), or one engine's search limit, which only the engine that reads it
accepts: the chess family's UCI engines read nodes=N / depth=D, gnubg (backgammon) plies=0|1|2. A limit
no game's engine would read is refused, not ignored; it is carried by each matchup, so it is stored
with the run's plan (a different limit, a new run).

And the equilibria a run will ask (its scored games, and those with a player that plays from the
oracle): one not yet cached takes tens of seconds to solve, so a command builds it before the run's
progress bar starts, and says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ..errors import UserError
from ..games import get_game

if TYPE_CHECKING:
    from ..games import GameDef
    from ..oracles.equilibrium import BuildProgress
    from .plan import Matchup

# Players that read the game's oracle themselves (so it is needed even under `--score off`).
ORACLE_PLAYERS = ("equilibrium", "optimal")


def scored(matchups: Sequence[Matchup], score: str) -> list[Matchup]:
    """The matchups as `--score` says they are graded: `on` as they are, `off` unscored, an engine's
    limit carried by each (checked against the engines their games are graded by)."""
    if score == "off":
        return [dataclasses.replace(m, score=False) for m in matchups]
    if score == "on":
        return list(matchups)
    limit = engine_limit(score, sorted({get_game(m.game).name for m in matchups}))
    return [dataclasses.replace(m, score_limit=limit) for m in matchups]


def engine_limit(score: str, games: Sequence[str]) -> str:
    """`score` as the one engine grading `games` stores it ("" for its default limit).

    Raises:
        UserError: the limit is malformed, the games are graded by two engines that read different
            limits (chess-family games and backgammon), or by no engine at all.
    """
    from ..oracles.engine import Limit, parse_limit
    from ..oracles.gnubg import level_key, parse_level
    from ..oracles.uci import FAMILY, maps

    chess, gnubg = any(maps(g) for g in games), "backgammon" in games
    if chess and gnubg:  # one limit, two engines that read different ones
        raise UserError(
            f"--score {score} is one engine's limit; run chess-family games and backgammon separately"
        )
    if gnubg:  # gnubg's level: plies=0|1|2
        return level_key(parse_level(score))
    if not chess:  # a limit no engine would read: refused, not ignored
        parse_limit(score)
        raise UserError(
            f"--score {score} sets an engine's search limit, and {', '.join(games)} is not scored "
            f"by an engine (those are: {', '.join(FAMILY)}, backgammon); use --score on or off"
        )
    parsed = parse_limit(score)
    return "" if parsed == Limit() else parsed.text()


def oracle_games(matchups: Iterable[Matchup]) -> list[str]:
    """The games of a plan's matchups whose oracle the run will ask: scored, or with a player that
    plays from it."""
    needed = [
        m.game
        for m in matchups
        if m.score or any(s.split(":")[0] in ORACLE_PLAYERS for s in (m.player, *m.opponents))
    ]
    return list(dict.fromkeys(needed))


def unbuilt_equilibria(games: Iterable[str]) -> list[GameDef]:
    """Those of `games` graded by an equilibrium that is not cached on disk yet."""
    from ..oracles.equilibrium import cache_path

    out = []
    for spec in games:
        game = get_game(spec)
        truth = game.ground_truth
        if truth is not None and truth.kind == "equilibrium" and not cache_path(game.spec).exists():
            out.append(game)
    return out


def build_equilibrium(game: GameDef, progress: BuildProgress) -> None:
    """Solve `game`'s equilibrium and cache it (`progress` told of each solver iteration)."""
    from ..oracles.equilibrium import EquilibriumOracle

    EquilibriumOracle.load_or_build(game.engine, game.spec, progress=progress)
