"""What a suite run says: per player, and for every pair of players on the same positions.

Per player (`suite-players`): the optimal-move rate with its Wilson interval, the mean loss on the
suite's graded scale, skill above chance (the rate less the mean of the positions' own random
baselines, `chance`), the rate in each difficulty band (by that baseline), failures, calls and
tokens. Per pair (`suite-pairs`): on the positions both answered, the paired difference of rates
(McNemar, exact) and of mean losses (paired bootstrap, seeded), each with interval and p-value.
Both are entries of the one table registry, so every format `render` writes works. The players
table reads the runs of the move kind (`moves.MoveKind.tables` gives it only those); the Clue
deduction kind's own table (`suite-deductions`) is that kind's (`deduction`).

`n` counts positions, never answers: under `suite run --repeats` a position's answers are one
observation of the player on it, so every interval and test is over positions
(`analysis.repeated`: Wilson on the effective number of positions; the sign-flip test that is
McNemar's when a position's answers agree); a deterministic player repeated is reported as if it
had answered once.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

from ..analysis.paired import paired_bootstrap
from ..analysis.repeated import repeated_paired, repeated_rate
from ..errors import UserError
from ..render.table import Table, register_table
from .answer import Answer, SuiteResults
from .study import SuiteStore

# Difficulty bands by the position's own random baseline (the chance a uniform move is optimal).
BANDS: tuple[tuple[str, float, float], ...] = (
    ("hard", 0.0, 0.25),  # chance <= 1/4
    ("medium", 0.25, 0.5),  # 1/4 < chance <= 1/2
    ("easy", 0.5, 1.0),  # chance > 1/2
)
BOOTSTRAP_SEED = 0
RESAMPLES = 2000


def band_of(chance: float) -> str:
    for name, low, high in BANDS:
        if low < chance <= high or (low == 0.0 and chance <= high):
            return name
    return BANDS[-1][0]


def read_results(store_path: Path, suite: str | None = None) -> SuiteResults:
    """The store's suite runs (only `suite`'s where named); UserError when there are none."""
    if not store_path.is_file():
        raise UserError(f"no store at {store_path}; run a suite first (plylab suite run NAME --player SPEC)")
    store = SuiteStore(store_path, create=False)
    try:
        runs = [r for r in store.suite_runs() if suite is None or r.suite == suite]
        if not runs:
            which = f"of suite '{suite}' " if suite else ""
            raise UserError(
                f"no suite runs {which}in {store_path}; run one with plylab suite run NAME --player SPEC"
            )
        return SuiteResults(tuple((r, tuple(store.answers(r.id))) for r in runs))
    finally:
        store.close()


def histogram_bar(n: int, most: int, width: int = 30) -> str:
    """A histogram's bar of `n` in `suite show`: `width` marks for the largest count, `most`."""
    return "#" * (round(width * n / most) if most else 0)


def figure(x: float | None, digits: int = 3) -> str:
    """A figure in a table cell: `digits` decimals, or a dash where there is none."""
    return "–" if x is None else f"{x:.{digits}f}"


def player_label(answer: Answer) -> str:
    """The player as the tables name it: its spec and, for a player that read a frozen experience
    memory (REAPER's `memory=PATH`), that memory's content hash (short), so the name says what played."""
    if answer.memory is None:
        return answer.player
    return f"{answer.player} [memory {answer.memory[: len('sha256:') + 12]}]"


def _by_position(answers: Sequence[Answer]) -> dict[int, list[Answer]]:
    """A player's answers grouped by position (its repeats together), in the suite's order."""
    out: dict[int, list[Answer]] = {}
    for a in sorted(answers, key=lambda x: (x.position, x.repeat)):
        out.setdefault(a.position, []).append(a)
    return out


def by_player(answers: Sequence[Answer]) -> dict[str, list[Answer]]:
    """Answers grouped by the player's label (`player_label`)."""
    out: dict[str, list[Answer]] = {}
    for a in answers:
        out.setdefault(player_label(a), []).append(a)
    return out


PLAYER_COLUMNS = [
    "suite",
    "player",
    "n",
    "optimal rate [95% CI]",
    "mean loss",
    "above chance",
    *(f"{name} rate (n)" for name, _, _ in BANDS),
    "failures",
    "calls",
    "tokens in",
    "tokens out",
    "cost",
]


@register_table(
    "suite-players",
    "per suite and player: optimal-move rate (Wilson), mean loss, skill above chance, rates by difficulty band, calls, tokens and cost",
)
def players_table(results: SuiteResults) -> Table:
    rows: list[list[str]] = []
    data: list[dict[str, object]] = []
    for run, answers in results.runs:
        for player, mine in by_player(answers).items():
            per = _by_position(mine)
            n, answered = len(per), len(mine)  # positions; answers (more under --repeats)
            rate = repeated_rate([(sum(a.optimal for a in xs), len(xs)) for xs in per.values()])
            loss = sum(a.loss for a in mine) / answered
            above = (rate.rate or 0.0) - sum(a.chance for a in mine) / answered
            bands: dict[str, dict[str, object]] = {}
            cells = []
            for name, _, _ in BANDS:
                inside = [a for a in mine if band_of(a.chance) == name]
                r = sum(a.optimal for a in inside) / len(inside) if inside else None
                held = len({a.position for a in inside})
                bands[name] = {"rate": r, "n": held, "answers": len(inside)}
                cells.append(f"{figure(r)} ({held})")
            failures = sum(1 for a in mine if a.failure is not None and a.action is None)
            calls = sum(a.calls for a in mine)
            tin, tout = sum(a.input_tokens for a in mine), sum(a.output_tokens for a in mine)
            costs = [a.cost for a in mine if a.cost is not None]
            cost = sum(costs) if costs else None
            rows.append(
                [
                    run.suite,
                    player,
                    str(n),
                    f"{figure(rate.rate)} [{figure(rate.low)}, {figure(rate.high)}]",
                    figure(loss),
                    f"{above:+.3f}",
                    *cells,
                    str(failures),
                    str(calls),
                    str(tin),
                    str(tout),
                    "–" if cost is None else f"${cost:.4f}",
                ]
            )
            data.append(
                {
                    "suite": run.suite,
                    "hash": run.hash,
                    "game": run.game,
                    "player": mine[0].player,
                    "memory": mine[0].memory,
                    "n": n,
                    "positions": n,
                    "answers": answered,
                    "optimal": rate.to_json(),
                    "mean_loss": loss,
                    "above_chance": above,
                    "bands": bands,
                    "failures": failures,
                    "calls": calls,
                    "input_tokens": tin,
                    "output_tokens": tout,
                    "cost": cost,
                }
            )
    notes = [
        "optimal: a move as good as the best on the suite's graded scale; a failure is not optimal and loses best minus worst",
        "above chance: the rate less the mean chance that a uniformly random legal move is optimal",
        "bands by that chance: hard <= 1/4 < medium <= 1/2 < easy",
    ]
    if any(a.repeat for _, answers in results.runs for a in answers):
        notes.append(REPEATS_NOTE)
    if any(a.memory for _, answers in results.runs for a in answers):
        notes.append(
            "[memory sha256:...]: the content hash of the frozen experience memory the player answered with"
        )
    return Table(PLAYER_COLUMNS, rows, notes=notes, title="Suites: players", data={"players": data})


REPEATS_NOTE = (
    "n: positions; a position answered several times (suite run --repeats) counts once: the rate is "
    "over all answers, its Wilson interval over the effective number of positions (from n, when a "
    "player answers each position the same every time, to the answers, when answers vary within a "
    "position as much as across positions); pairs: each position's repeats averaged, the sign-flip "
    "test over positions"
)

PAIR_COLUMNS = [
    "suite",
    "first",
    "second",
    "n",
    "rate difference [95% CI]",
    "McNemar p",
    "loss difference [95% CI]",
    "bootstrap p",
]


@register_table(
    "suite-pairs",
    "per suite, every pair of players on the positions both answered: paired difference of optimal rates (McNemar exact) and of mean loss (paired bootstrap)",
)
def pairs_table(results: SuiteResults) -> Table:
    rows: list[list[str]] = []
    data: list[dict[str, object]] = []
    for run, answers in results.runs:
        players = by_player(answers)
        for first, second in combinations(sorted(players), 2):
            a = {(x.position, x.repeat): x for x in players[first]}  # a repeat pairs with the same repeat
            b = {(x.position, x.repeat): x for x in players[second]}
            per: dict[int, list[tuple[Answer, Answer]]] = {}  # position -> its paired answers
            for key in sorted(a.keys() & b.keys()):
                per.setdefault(key[0], []).append((a[key], b[key]))
            pairs = list(per.values())
            rate = repeated_paired(
                [(sum(x.optimal for x, _ in ps) - sum(y.optimal for _, y in ps), len(ps)) for ps in pairs]
            )
            loss = paired_bootstrap(  # each position's mean loss: positions resampled, not answers
                [sum(x.loss for x, _ in ps) / len(ps) for ps in pairs],
                [sum(y.loss for _, y in ps) / len(ps) for ps in pairs],
                resamples=RESAMPLES,
                seed=BOOTSTRAP_SEED,
            )
            rows.append(
                [
                    run.suite,
                    first,
                    second,
                    str(len(pairs)),
                    f"{rate.difference:+.3f} [{rate.low:+.3f}, {rate.high:+.3f}]",
                    f"{rate.p:.3g}",
                    f"{loss.difference:+.3f} [{loss.low:+.3f}, {loss.high:+.3f}]",
                    f"{loss.p:.3g}" if loss.p > 0 else f"<{1 / RESAMPLES:.1g}",
                ]
            )
            data.append(
                {
                    "suite": run.suite,
                    "hash": run.hash,
                    "first": players[first][0].player,
                    "second": players[second][0].player,
                    "first_memory": players[first][0].memory,
                    "second_memory": players[second][0].memory,
                    "rate": rate.to_json(),
                    "loss": loss.to_json(),
                }
            )
    notes = [
        "difference: first minus second, on the same positions",
        "a Clue deduction suite: rate = snapshots with every entailed fact stated and none false; loss = incorrect + missed facts",
        f"rates: McNemar's exact test (binomial on discordant positions), Wald interval for paired proportions; "
        f"loss: paired bootstrap, {RESAMPLES} resamples, seed {BOOTSTRAP_SEED}",
    ]
    if any(a.repeat for _, answers in results.runs for a in answers):
        notes.append(REPEATS_NOTE)
    return Table(PAIR_COLUMNS, rows, notes=notes, title="Suites: pairs", data={"pairs": data})
