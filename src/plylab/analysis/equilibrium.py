"""Per matchup in a game with an equilibrium oracle: what the player's decisions lose against it.

Read from the grades stored on the moves (oracles.equilibrium): the mean expected loss per decision
(best value minus the chosen one's, the game's utility units, with a game-clustered bootstrap
interval), the equilibrium-action rate (the chosen action has equilibrium probability above
`oracles.equilibrium.PLAYED`; Wilson and game-clustered intervals), both over the informative
decisions only (an information set where every action is worth the same within the oracle's
tolerance says nothing); the mean payoff per game (Student-t); and, where the game has at most
SMALL information sets (Kuhn poker: 12; not Leduc poker's 936, where 200 resamples would take a
report half a minute), the exploitability of the player's
empirical strategy: its action frequencies per information set, pooled over both seats, uniform
at information sets it never decided at, as `pyspiel.exploitability` defines it (half the NashConv),
with a bootstrap over games.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..harness.store import Store
from ..oracles.graded import Grade
from ..players.canonical import canonical_spec
from .results import EquilibriumFigures, EquilibriumRate, Exploitability, Loss, MatchupKey, MatchupRow, Mean
from .stats import cluster_bootstrap, estimate_text, interval_holds, student_t, wilson

if TYPE_CHECKING:
    import pyspiel

# Game families with an equilibrium oracle (oracles.equilibrium.BOUNDS), by name: a report of
# other games reads no move and loads no OpenSpiel.
GAMES = ("kuhn_poker", "leduc_poker", "liars_dice")
SMALL = 100  # information sets: at most this many, the empirical strategy's exploitability is computed
RESAMPLES = 200  # bootstrap resamples of the exploitability (each is one `pyspiel.exploitability`)

Counts = dict[str, dict[int, int]]  # information set -> action -> times chosen


def has_equilibrium(game: str) -> bool:
    return game.partition(":")[0].strip() in GAMES


@dataclass
class _Acc:
    games: list[tuple[tuple[str, int], float, float, int, int]] = field(default_factory=list)
    payoffs: list[float] = field(default_factory=list)
    per_game_counts: list[Counts] = field(default_factory=list)
    stated: list[tuple[tuple[str, int], float, int]] = field(default_factory=list)  # (order, loss sum, n)
    decisions: int = 0
    span: float = 0.0
    source: str = ""


def counts_of(grades: Iterable[tuple[Grade, int]]) -> Counts:
    """Action counts per information set from (grade, chosen action) pairs."""
    out: Counts = defaultdict(lambda: defaultdict(int))
    for grade, action in grades:
        key = grade.detail.get("infoset")
        if key is not None:
            out[key][action] += 1
    return {k: dict(v) for k, v in out.items()}


def merged(parts: Iterable[Counts]) -> Counts:
    out: Counts = defaultdict(lambda: defaultdict(int))
    for part in parts:
        for key, acts in part.items():
            for a, n in acts.items():
                out[key][a] += n
    return {k: dict(v) for k, v in out.items()}


def empirical_policy(counts: Counts, legal: dict[str, list[int]]) -> dict[str, list[tuple[int, float]]]:
    """A full policy table: frequencies where the player decided, uniform elsewhere."""
    table: dict[str, list[tuple[int, float]]] = {}
    for key, actions in legal.items():
        seen = counts.get(key)
        total = sum(seen.values()) if seen else 0
        if seen and total:
            table[key] = [(a, seen.get(a, 0) / total) for a in actions]
        else:
            table[key] = [(a, 1.0 / len(actions)) for a in actions]
    return table


def exploitability(game: pyspiel.Game, counts: Counts, legal: dict[str, list[int]]) -> float:
    import pyspiel

    return float(pyspiel.exploitability(game, empirical_policy(counts, legal)))


def exploitability_estimate(
    game: pyspiel.Game, per_game: list[Counts], legal: dict[str, list[int]], resamples: int = RESAMPLES
) -> Exploitability:
    """The empirical strategy's exploitability with a percentile bootstrap over games (seeded)."""
    whole = merged(per_game)
    value = exploitability(game, whole, legal)
    decisions = sum(n for acts in whole.values() for n in acts.values())
    low = high = value
    if len(per_game) > 1:
        rng = random.Random(0)
        draws = sorted(
            exploitability(game, merged(rng.choices(per_game, k=len(per_game))), legal)
            for _ in range(resamples)
        )
        low, high = draws[int(0.025 * (resamples - 1))], draws[int(round(0.975 * (resamples - 1)))]
    return Exploitability(value, low, high, decisions, len(whole), len(legal), resamples)


def matchup_equilibrium(store: Store, run_ids: dict[int, str]) -> dict[MatchupKey, EquilibriumFigures]:
    """Per (run, game, formulation, player, opponent) of an equilibrium game: its metrics (module doc)."""
    from ..oracles.equilibrium import PLAYED

    acc: dict[MatchupKey, _Acc] = {}
    games = [g for g in store.games(run_ids) if has_equilibrium(g.game)]
    moves = store.moves_for_games([g.id for g in games]) if games else {}
    for g in games:
        player = canonical_spec(g.player)
        key = (run_ids[g.run_id], g.game, g.formulation, player, canonical_spec(g.opponent))
        a = acc.setdefault(key, _Acc())
        loss_sum, informative, played = 0.0, 0, 0
        stated_sum, stated_n = 0.0, 0
        pairs: list[tuple[Grade, int]] = []
        for m in moves[g.id]:
            if m.seat != g.player_seat or m.grade is None or m.action is None:
                continue
            grade = Grade.from_json(m.grade)
            if grade.unit != "payoff":
                continue
            a.span, a.source = grade.span, grade.source
            pairs.append((grade, m.action))
            if not grade.informative:
                continue
            informative += 1
            loss_sum += grade.loss(m.action)
            policy = grade.detail.get("policy", {})
            played += float(policy.get(str(m.action), 0.0)) > PLAYED
            by_action = stated_of(m.note)
            if by_action is not None:
                stated_sum += sum(p * grade.loss(a) for a, p in by_action.items())
                stated_n += 1
        a.decisions += len(pairs)
        a.per_game_counts.append(counts_of(pairs))
        order = (g.job_key.rsplit("|", 3)[0], g.idx)
        a.games.append((order, loss_sum, float(played), informative, len(pairs)))
        if stated_n:
            a.stated.append((order, stated_sum, stated_n))
        a.payoffs.append(float(json.loads(g.returns)[g.player_seat]))
    out = {}
    for key, a in acc.items():
        if not a.decisions:
            continue
        ordered = sorted(a.games)
        n = sum(x[3] for x in ordered)
        loss_total = sum(x[1] for x in ordered)
        played_total = int(sum(x[2] for x in ordered))
        loss_ci = cluster_bootstrap([(x[1], x[3]) for x in ordered])
        rate_ci = cluster_bootstrap([(x[2], x[3]) for x in ordered])
        w = wilson(played_total, n)
        pay = student_t(a.payoffs)
        out[key] = EquilibriumFigures(
            source=a.source,
            span=a.span,
            decisions=a.decisions,
            informative=n,
            loss=Loss(
                loss_total / n if n else None,
                loss_ci.low,
                loss_ci.high,
                loss_total / n / a.span if n and a.span else None,
                n,
            ),
            equilibrium_rate=EquilibriumRate(w.rate, w.low, w.high, n, rate_ci.low, rate_ci.high, PLAYED),
            payoff=Mean.of(pay),
            exploitability=_exploitability(key[1], [a.per_game_counts[i] for i in _order(a.games)]),
            stated_loss=_stated_loss(a.stated, a.span),
        )
    return out


def stated_of(note: str | None) -> dict[int, float] | None:
    """A move's stated distribution by engine action (`output=distribution`'s note), or None."""
    if not note:
        return None
    try:
        by_action = json.loads(note).get("by_action")
        return {int(k): float(v) for k, v in by_action.items()} if isinstance(by_action, dict) else None
    except (ValueError, AttributeError, TypeError):
        return None


def _stated_loss(games: list[tuple[tuple[str, int], float, int]], span: float) -> Loss | None:
    """The mean expected loss of the stated distributions, per informative decision (clustered by game)."""
    if not games:
        return None
    ordered = sorted(games)
    n = sum(x[2] for x in ordered)
    total = sum(x[1] for x in ordered)
    ci = cluster_bootstrap([(x[1], x[2]) for x in ordered])
    return Loss(total / n, ci.low, ci.high, total / n / span if span else None, n)


def _order(games: list[tuple[tuple[str, int], float, float, int, int]]) -> list[int]:
    return sorted(range(len(games)), key=lambda i: games[i][0])


def legal_for(spec: str) -> tuple[pyspiel.Game, dict[str, list[int]]] | None:
    """The engine and information sets of the game named `spec`, where it is small enough."""
    from ..games import GAMES as REGISTRY
    from ..oracles.equilibrium import EquilibriumOracle

    if spec not in REGISTRY:
        return None
    definition = REGISTRY.get(spec)
    if not definition.has_oracle:
        return None
    oracle = definition.oracle()
    if not isinstance(oracle, EquilibriumOracle) or len(oracle) > SMALL:
        return None
    return definition.engine, {k: sorted(e.policy) for k, e in oracle.infosets.items()}


def _exploitability(spec: str, per_game: list[Counts]) -> Exploitability | None:
    found = legal_for(spec)
    if found is None:
        return None
    engine, legal = found
    return exploitability_estimate(engine, per_game, legal)


# -- the report's table -------------------------------------------------------------------------


def _num(x: float | None, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _interval(
    mean: float | None, low: float | None, high: float | None, n: int | None, sign: str = "+"
) -> str:
    """An estimate by the one rule (stats.estimate_text): `mean [low, high]`, or `mean (n=k)`."""
    if mean is None:
        return "–"
    return estimate_text(mean, low, high, n, lambda x: f"{x:{sign}.3f}")


def _exploitability_text(ex: Exploitability) -> str:
    """By the one rule over the decisions it rests on: `v [low, high] (decisions)` or `v (n=decisions)`."""
    text = estimate_text(ex.value, ex.low, ex.high, ex.decisions, "{:.4f}".format)
    return f"{text} ({ex.decisions})" if interval_holds(ex.low, ex.high, ex.decisions) else text


def table(rows: list[MatchupRow]) -> tuple[list[str], list[list[str]]]:
    """One line per matchup of an equilibrium game (the rows `metrics.matchup_results` gave one), its
    run and formulation on every line (a standard and a relabelled matchup are two lines)."""
    from ..players.canonical import printed_run_name

    header = [
        "run",
        "game",
        "formulation",
        "player",
        "opponent",
        "decisions",
        "expected loss [clustered 95%]",
        "loss/range",
        "stated distribution's loss",
        "equilibrium action [95% Wilson]",
        "clustered 95%",
        "payoff/game [95% t]",
        "exploitability [bootstrap 95%] (decisions)",
    ]
    body = []
    for r in rows:
        e = r.equilibrium
        if e is None:
            continue
        loss, rate, pay, ex = e.loss, e.equilibrium_rate, e.payoff, e.exploitability
        rate_text = _interval(rate.rate, rate.low, rate.high, rate.scored, "")
        holds = interval_holds(rate.cluster_low, rate.cluster_high, rate.scored)
        cluster = f"[{rate.cluster_low:.3f}, {rate.cluster_high:.3f}]" if holds else "–"
        ex_text = "–" if ex is None else _exploitability_text(ex)
        body.append(
            [
                printed_run_name(r.run) + ("" if r.status == "finished" else f" ({r.status})"),
                r.game,
                r.formulation,
                r.player,
                r.opponent,
                f"{e.informative}/{e.decisions}",
                _interval(loss.mean, loss.low, loss.high, loss.n, ""),
                _num(loss.relative, 4),
                _stated_text(e.stated_loss),
                rate_text,
                cluster,
                _interval(pay.mean, pay.low, pay.high, pay.n),
                ex_text,
            ]
        )
    return header, body


def _stated_text(loss: Loss | None) -> str:
    return "–" if loss is None else _interval(loss.mean, loss.low, loss.high, loss.n, "")


def note(rows: list[MatchupRow]) -> str:
    thresholds = {r.equilibrium.equilibrium_rate.threshold for r in rows if r.equilibrium is not None}
    return NOTE.format(threshold=", ".join(str(t) for t in sorted(thresholds)) or "–", small=SMALL)


NOTE = (
    "Against the game's equilibrium (oracles.equilibrium): expected loss = best action value minus the "
    "chosen one's, in the game's payoff units, over informative decisions (informative/all); the stated "
    "distribution's loss (output=distribution) = the sum over moves of p(move) x its loss, beside the drawn "
    "move's; equilibrium "
    "action = the chosen action's equilibrium probability above {threshold}; exploitability of the "
    "player's empirical strategy (both seats, uniform where unseen) where the game has at most "
    "{small} information sets."
)
