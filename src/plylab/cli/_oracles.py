"""Ground truth built before a run's progress bar starts. An equilibrium not yet cached takes tens of
seconds to solve (Leduc poker: about a minute on two busy cores), so it is said and shown as it is
built, once, instead of running silently behind a bar at 0 games."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..harness.plan import Matchup

# Players that read the game's oracle themselves (so it is needed even under `--score off`).
ORACLE_PLAYERS = ("equilibrium", "optimal")


def oracle_games(matchups: Iterable[Matchup]) -> list[str]:
    """The games of a plan's matchups whose oracle the run will ask: scored, or with a player that
    plays from it."""
    needed = [
        m.game
        for m in matchups
        if m.score or any(s.split(":")[0] in ORACLE_PLAYERS for s in (m.player, *m.opponents))
    ]
    return list(dict.fromkeys(needed))


def build_equilibria(games: Iterable[str], *, quiet: bool = False) -> None:
    """Build (and cache) the equilibrium of each game that has one and has none on disk, with a line
    and a bar of the solver's iterations on stderr (none when `quiet`)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

    from ..games import get_game
    from ..oracles.equilibrium import EquilibriumOracle, cache_path

    for spec in games:
        game = get_game(spec)
        truth = game.ground_truth
        if truth is None or truth.kind != "equilibrium" or cache_path(game.spec).exists():
            continue
        console = Console(stderr=True)
        if not quiet:
            console.print(f"building the {game.title} equilibrium (once, cached)…", highlight=False)
        columns = (BarColumn(), MofNCompleteColumn(), TextColumn("solver iterations"), TimeElapsedColumn())
        with Progress(*columns, console=console, disable=quiet, transient=False) as bar:
            task = bar.add_task("", total=None)

            def told(done: int, goal: int, task: TaskID = task, bar: Progress = bar) -> None:
                bar.update(task, completed=done, total=goal)

            EquilibriumOracle.load_or_build(game.engine, game.spec, progress=told)
