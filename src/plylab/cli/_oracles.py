"""Ground truth built before a run's progress bar starts, in sight. An equilibrium not yet cached takes
tens of seconds to solve (Leduc poker: about a minute on two busy cores), so it is said and shown as it
is built, once, instead of running silently behind a bar at 0 games (`harness.grading` says which)."""

from __future__ import annotations

from collections.abc import Iterable


def build_equilibria(games: Iterable[str], *, quiet: bool = False) -> None:
    """Build (and cache) the equilibrium of each game that has one and has none on disk, with a line
    and a bar of the solver's iterations on stderr (none when `quiet`)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

    from ..harness.grading import build_equilibrium, unbuilt_equilibria

    for game in unbuilt_equilibria(games):
        console = Console(stderr=True)
        if not quiet:
            console.print(f"building the {game.title} equilibrium (once, cached)…", highlight=False)
        columns = (BarColumn(), MofNCompleteColumn(), TextColumn("solver iterations"), TimeElapsedColumn())
        with Progress(*columns, console=console, disable=quiet, transient=False) as bar:
            task = bar.add_task("", total=None)

            def told(done: int, goal: int, task: TaskID = task, bar: Progress = bar) -> None:
                bar.update(task, completed=done, total=goal)

            build_equilibrium(game, told)
