"""A suite's calibration: every position answered by a ladder of reference players, and a 2PL fit.

A position's worth as a measurement depends on who is measured: one a random sampler reaches may be
answered alike by every strong player. Reference players (`random`, MCTS at budgets, `optimal` with an
epsilon...) cost no model call, so every position can be put to a ladder of them before any model is:
`suite calibrate` asks each ladder player every position `answers` times (each answer with a seed of its
own, drawn from the calibration's seed), fits the two-parameter logistic model (`analysis.irt`) to the
optimal/not-optimal answers, one respondent per (player, repeat), and writes the fit into the suite's
header: the ladder, each position's difficulty, discrimination, rate and item-rest correlation, each
ladder player's ability with its standard error, and, where the ladder holds both `random` and
`optimal`, those abilities on the anchored scale (0 = `random`, 1,000 = `optimal`).

The calibration is part of the header, so a calibrated suite has a new hash (and is another run for
`suite run`); the positions' lines and ids are unchanged. The answers' seeds come from the suite's hash
*without* its calibration and from `--seed`, so calibrating a file again with the same ladder and seed
writes the same bytes, whether or not it was calibrated before.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from ..analysis.irt import Ability, AnchoredScale, Fit, Item, ability, fit_2pl
from ..errors import UserError
from ..players import RunContext
from ..players.canonical import canonical_spec
from ..seeds import derive_seed
from .file import Suite, read_suite
from .kinds import kind_of
from .moves import MoveKind
from .study import suite_job

ANCHORS = ("random", "optimal")  # the ladder players whose abilities fix the anchored scale's 0 and 1,000
NEAR_ZERO = 0.35  # a discrimination at or below this separates hardly at all ("very low", Baker 2001)
DIGITS = 6  # the fit's numbers as written: rounded, so the same fit is the same bytes on any machine


def calibrate(suite: Suite, ladder: list[str], answers: int, seed: int) -> Suite:
    """The suite with its calibration by `ladder` (classic player specs), `answers` answers per
    position and player, seeded by `seed`. UserError in one line for a Clue suite, fewer than two ladder
    players, a player that needs a model, or answers that no fit can use."""
    kind = kind_of(suite.game)
    if not isinstance(kind, MoveKind):
        raise UserError("suite calibrate is for suites of moves; a Clue suite's snapshots are not calibrated")
    specs = [canonical_spec(p) for p in ladder]
    if len(set(specs)) < 2:
        raise UserError(f"--ladder needs at least two different players (got {', '.join(specs) or 'none'})")
    if not 1 <= answers <= 1000:
        raise UserError(f"--answers must be a whole number from 1 to 1000 (got {answers})")
    specs = list(dict.fromkeys(specs))
    for spec in specs:
        kind.player(suite.game, spec)  # refused in one line before anything runs
        if kind.uses_model(suite.game, spec):
            raise UserError(
                f"ladder player '{spec}' calls a model; a calibration's ladder is reference players "
                "(random, mcts:sims=N, optimal:epsilon=E...), free to run and of known strength"
            )
    plain = replace(suite, calibration=None)
    responses = asyncio.run(_answers(plain, specs, answers, seed))
    try:
        fit = fit_2pl(responses)
    except ValueError as exc:
        raise UserError(f"cannot calibrate suite '{suite.name}': {exc}; use a more varied ladder") from None
    return replace(suite, calibration=_calibration(fit, responses, specs, answers, seed))


async def _answers(suite: Suite, specs: list[str], answers: int, seed: int) -> np.ndarray[Any, Any]:
    """The response matrix: one row per (player, repeat), in ladder order, one column per position;
    each answer asked through the suite run's own job (`SuiteJob.play`), so a ladder player answers
    exactly as it would in `suite run`."""
    rows = np.zeros((len(specs) * answers, len(suite.positions)), dtype=int)
    context = RunContext()
    for p, spec in enumerate(specs):
        for r in range(answers):
            for pos in suite.positions:
                job = suite_job(suite, pos, spec, None, r)
                job = replace(job, seed=derive_seed(suite.hash, "calibrate", seed, pos.index, spec, r))
                rows[p * answers + r, pos.index] = int((await job.play(context)).optimal)
    return rows


def _calibration(
    fit: Fit, responses: np.ndarray[Any, Any], specs: list[str], answers: int, seed: int
) -> dict[str, Any]:
    difficulty, discrimination = fit.arrays()
    positions = responses.shape[1]
    abilities: dict[str, Ability] = {}
    for p, spec in enumerate(specs):
        shares = responses[p * answers : (p + 1) * answers].mean(axis=0)  # each position counted once
        abilities[spec] = ability(range(positions), shares.tolist(), difficulty, discrimination)
    scale = _scale(abilities)
    players = {}
    for p, spec in enumerate(specs):
        est = abilities[spec]
        entry: dict[str, Any] = {
            "ability": _num(est.theta),
            "se": _num(est.se),
            "rate": _num(float(responses[p * answers : (p + 1) * answers].mean())),
        }
        if scale is not None:
            entry["anchored"] = [_num(v) for v in scale.anchored(est)]
        players[spec] = entry
    return {
        "model": "2pl",
        "fit": f"girth {version('girth')} twopl_mml_eap; abilities EAP, standard normal prior",
        "ladder": specs,
        "answers": answers,
        "seed": seed,
        "anchors": {ANCHORS[0]: 0, ANCHORS[1]: 1000} if scale is not None else None,
        "players": players,
        "items": [
            {
                "difficulty": None if item.difficulty is None else _num(item.difficulty),
                "discrimination": _num(item.discrimination),
                "rate": _num(item.rate),
                "correlation": None if item.correlation is None else _num(item.correlation),
            }
            for item in fit.items
        ],
    }


def items(suite: Suite) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The calibrated suite's difficulties and discriminations, one per position in the suite's order
    (an uninformative position: discrimination 0), as `analysis.adaptive` takes them."""
    if suite.calibration is None:
        raise UserError(f"suite '{suite.name}' is not calibrated; run plylab suite calibrate first")
    fit = Fit(
        tuple(Item(i["difficulty"], i["discrimination"], i["rate"]) for i in suite.calibration["items"])
    )
    return fit.arrays()


def _scale(abilities: dict[str, Ability]) -> AnchoredScale | None:
    """The anchored scale where the ladder holds both anchors (and `optimal` is the abler), else None."""
    low, high = (abilities.get(a) for a in ANCHORS)
    if low is None or high is None or not high.theta > low.theta:
        return None
    return AnchoredScale(low.theta, high.theta)


def _num(value: float) -> float:
    return round(float(value), DIGITS) + 0.0  # + 0.0: never a "-0.0" in the file


def calibrate_file(
    name_or_path: str, ladder: list[str], answers: int, seed: int, out: Path | None = None
) -> list[str]:
    """`suite calibrate`: the suite read, calibrated and written back (or to `out`); the lines to print."""
    suite, path = read_suite(name_or_path)
    calibrated = calibrate(suite, ladder, answers, seed)
    target = out if out is not None else path
    calibrated.write(target)
    return [
        f"suite '{suite.name}' calibrated: written to {target} ({calibrated.hash})",
        *show_lines(calibrated),
    ]


def show_lines(suite: Suite) -> list[str]:
    """What `suite show` prints of a calibration: the ladder's abilities, and the positions that
    separate the ladder hardly at all or backwards."""
    cal = suite.calibration
    if cal is None:
        return []
    lines = [
        f"calibration: 2PL ({cal['fit']}), ladder of {len(cal['ladder'])}, {cal['answers']} answers each, seed {cal['seed']}"
    ]
    anchored = cal.get("anchors") is not None
    lines.append(
        "  player ability [95% CI]" + (" (0 = random, 1000 = optimal)" if anchored else " (fitted scale)")
    )
    for spec in cal["ladder"]:
        p = cal["players"][spec]
        if anchored:
            v, lo, hi = p["anchored"]
            lines.append(f"  {spec:<24} {v:7.0f} [{lo:.0f}, {hi:.0f}]  optimal rate {p['rate']:.3f}")
        else:
            lo, hi = Ability(p["ability"], p["se"]).interval()
            lines.append(
                f"  {spec:<24} {p['ability']:7.3f} [{lo:.3f}, {hi:.3f}]  optimal rate {p['rate']:.3f}"
            )
    alike = [i for i, it in enumerate(cal["items"]) if it["difficulty"] is None]
    weak = [
        i
        for i, it in enumerate(cal["items"])
        if it["difficulty"] is not None
        and (it["discrimination"] <= NEAR_ZERO or (it["correlation"] is not None and it["correlation"] <= 0))
    ]
    lines.append(f"  answered alike by the whole ladder (no information): {_listed(alike)}")
    lines.append(
        f"  near-zero or negative discrimination (<= {NEAR_ZERO} or item-rest correlation <= 0): {_listed(weak)}"
    )
    return lines


def _listed(indices: list[int], most: int = 30) -> str:
    if not indices:
        return "none"
    shown = ", ".join(map(str, indices[:most]))
    return f"{len(indices)}: positions {shown}" + (", ..." if len(indices) > most else "")


__all__ = ["ANCHORS", "NEAR_ZERO", "calibrate", "calibrate_file", "items", "show_lines"]
