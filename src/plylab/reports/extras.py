"""Index sections that exist only when the store has their data: learning runs and Clue games.

Each builder returns None when the store has no such data. The modules that own the data are part
of plylab and imported plainly: a broken one fails the report instead of silently dropping its
section. Builders get the site writer as a `PageWriter` (page.py), so this module never imports
site.py, which calls it.
"""

from __future__ import annotations

from pathlib import Path

from ..harness.store import Store
from .page import Cell, Grid, PageWriter, Section, plot_ref


def learning(store_path: Path, run: str | None, out_dir: Path) -> Section | None:
    """Draw rate and tokens per move over checkpoints (the paper's Figures 4 and 5)."""
    store = Store(store_path, create=False)
    try:
        kinds = store.run_kinds(run)
    finally:
        store.close()
    if kinds <= {"play", "clue"}:
        return None
    from ..analysis import learning as learning_analysis  # part of plylab: a broken module fails loudly

    pngs = [
        Path(p)
        for p in learning_analysis.plot_learning(store_path, run, out_dir / "plots")
        if Path(p).suffix == ".png"
    ]
    if not pngs:
        return None
    return Section(
        "learning",
        "Learning",
        "Learning runs: outcomes and tokens per move at each checkpoint.",
        plots=[plot_ref(p, out_dir, _learning_caption(p.stem)) for p in pngs],
    )


def _learning_caption(stem: str) -> str:
    """'learning-tic_tac_toe-standard-optimal-draw_rate' -> 'tic tac toe · standard · optimal · draw rate'."""
    return " · ".join(part.replace("_", " ") for part in stem.removeprefix("learning-").split("-"))


CLUE_CAPTIONS = {
    "clue_knowledge": "Knowledge per round: holdings stated correctly (solid) and entailed by the oracle (dashed), "
    "against the ceiling.",
    "clue_delays": "Accusation delays: turns from the oracle entailing the solution (and from the solution being "
    "suggested) to the accusation.",
}


def _fmt(value: object, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def clue(writer: PageWriter, store_path: Path, run: str | None) -> Section | None:
    """The Clue study's tables and figures, a game list, and a replay page per Clue game.

    Clue runs are named by their keys, not `--run` names, so they appear with the whole store only.
    """
    if run is not None:
        return None
    store = Store(store_path, create=False)
    try:
        kinds = store.run_kinds()
    finally:
        store.close()
    if "clue" not in kinds:
        return None
    from . import clue as clue_data  # part of plylab: a broken module fails loudly, never hides the section

    data, pngs = clue_data.metrics(store_path, writer.out / "plots")
    conditions = Grid(
        "clue-conditions",
        "Games by condition",
        [
            "condition",
            "games",
            "mean turns",
            "solved",
            "turn limit",
            "all out",
            "solution suggested",
            "first suggester won",
        ],
        [
            [
                Cell(k),
                Cell(str(c.games)),
                Cell(_fmt(c.mean_turns, 1)),
                *(Cell(str(c.end_reasons.get(e, 0))) for e in ("solved", "turn_limit", "all_out")),
                Cell(str(c.solution_suggested)),
                Cell(str(c.first_suggester_won)),
            ]
            for k, c in sorted(data.conditions.items())
        ],
    )
    players = Grid(
        "clue-players",
        "Players",
        [
            "condition",
            "player",
            "player-games",
            "wins",
            "accusation accuracy",
            "identified",
            "deductions correct / incorrect / unsupported per player-game",
            "delay from entailment (turns)",
            "delay from solution suggested",
            "matrix ready (gap)",
        ],
        [
            [
                Cell(g.condition),
                Cell(g.spec),
                Cell(str(g.player_games)),
                Cell(str(g.wins)),
                Cell(
                    f"{_fmt(g.accusation_accuracy)} ({g.correct_accusations}/{g.accusations})",
                    sort=g.accusation_accuracy,
                ),
                Cell(_fmt(g.identified.rate), sort=g.identified.rate),
                Cell(
                    " / ".join(
                        _fmt(x)
                        for x in (
                            g.deductions.correct_per_game,
                            g.deductions.incorrect_per_game,
                            g.deductions.unsupported_per_game,
                        )
                    )
                ),
                Cell(_fmt(g.accusation_delay.from_entailment.mean, 1)),
                Cell(_fmt(g.accusation_delay.from_solution_suggested.mean, 1)),
                Cell(
                    "–"
                    if (r := g.accusation_delay.ready) is None
                    else f"{r.became_ready}/{r.players} ({_fmt(r.gap.mean, 1)})"
                ),
            ]
            for g in data.groups
        ],
    )
    listed = []
    for game in clue_data.replays(store_path):
        page = f"games/clue-{game.label}.html"
        writer.page("clue_replay.html", page, "../", game=game.payload)
        listed.append(
            [
                Cell(f"clue game {game.label}", sort=game.id, href=page),
                Cell(game.condition),
                Cell(game.run),
                Cell(str(game.turns)),
                Cell(game.winner or "nobody"),
                Cell(game.end_reason),
                Cell(game.envelope),
            ]
        )
    games = Grid(
        "clue-games",
        "Clue games (open one to replay it)",
        ["replay", "condition", "run", "turns", "winner", "end", "envelope"],
        listed,
    )
    no_delays = (
        ""
        if any(p.stem == "clue_delays" for p in pngs)
        else " No accusation-delay figure: no game has a delay to draw (no accusation came after the "
        "solution was entailed or suggested)."
    )
    return Section(
        "clue",
        "Clue",
        "The six-player Clue study: accusations, deductions judged against the SAT "
        "oracle, knowledge curves and accusation delays; each replay shows every seat's possibility "
        "matrix beside what the oracle can deduce from the same observations." + no_delays,
        tables=[conditions, players, games],
        plots=[plot_ref(p, writer.out, CLUE_CAPTIONS.get(p.stem, p.stem)) for p in pngs],
    )
