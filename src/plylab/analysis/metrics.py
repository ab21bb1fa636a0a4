"""Per-matchup metrics from the store: outcomes, per-move optimality, usage, tokens, recognition."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..harness.rows import USAGE
from ..harness.store import Store
from .equilibrium import has_equilibrium
from .recognition import Tally, patterns_for, recognizer
from .results import EquilibriumFigures, MatchupKey, MatchupRow, Mean, Rate, Usage
from .stats import Moments, bounded, cluster_bootstrap, student_t_moments, wilson

OUTCOMES = ("win", "draw", "loss", "failure")
CLUE_KIND = "clue"  # the kind of Clue's runs (plylab.clue.records.KIND; not imported: Clue stays unloaded)


def _rate(successes: int, n: int, clusters: list[tuple[int, int]]) -> Rate:
    w = wilson(successes, n)
    c = cluster_bootstrap(clusters)
    return Rate(w.rate, w.low, w.high, n, c.low, c.high)


def _mean(m: Moments) -> Mean:
    return Mean.of(student_t_moments(m))


def _count_mean(m: Moments) -> Mean:
    """The mean of a count (moves, tokens): its interval never below zero."""
    return Mean.of(bounded(student_t_moments(m)))


@dataclass
class _Acc:
    games: int = 0
    outcomes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    failure_kinds: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    opt: list[tuple[tuple[str, int], int, int]] = field(default_factory=list)  # (job order, k, n) per game
    opt_score: list[tuple[tuple[str, int], int, int]] = field(default_factory=list)
    tokens: Moments = field(default_factory=Moments)
    payoff: Moments = field(default_factory=Moments)
    player_moves: Moments = field(default_factory=Moments)
    recognition: Tally = field(default_factory=Tally)
    usage: dict[str, float] = field(default_factory=lambda: dict.fromkeys(USAGE, 0))
    cost: float | None = None
    first: tuple[int, str, int] | None = None  # the matchup's first game in job order: rows keep that order


# The games plylab registers as hidden-information ones (games/hidden.py), named here so a report
# need not load OpenSpiel to know them; tests/games/test_hidden.py checks the two agree.
HIDDEN_GAMES = frozenset(
    {
        "coordinated_mp", "dark_chess", "dark_hex", "dark_hex_ir", "gin_rummy", "go_fish",
        "kriegspiel", "kuhn_poker", "latent_ttt", "leduc_poker", "liars_dice", "liars_dice_ir",
        "phantom_go", "phantom_ttt", "phantom_ttt_ir", "rbc", "repeated_leduc_poker",
        "universal_poker",
    }
)  # fmt: skip


def hidden_information(game: str) -> bool:
    """A game of hidden information: its rows carry the mean payoff per game."""
    return game.partition(":")[0].strip() in HIDDEN_GAMES


def _clusters(per_game: list[tuple[tuple[str, int], int, int]]) -> list[tuple[int, int]]:
    # Job order, not finishing order: parallel backends store games in any order, and the
    # bootstrap must see the same clusters in the same order for identical runs.
    return [(k, n) for _, k, n in sorted(per_game)]


def matchup_results(
    store: Store, run: str | None = None, recognition_on: str = "trace", recognize: str = "names"
) -> list[MatchupRow]:
    """One row per (run, game, formulation, player, opponent), from the player's side.

    Recognition counts the game's names (`recognize="names"`, the paper's) or the wider set ("wide").

    Aggregated in SQL and streamed: memory grows with the number of games (two small tuples
    each, for the game-clustered interval), not with what their moves store.
    """
    # Clue's runs share the store but not this table: `plylab clue report` scores their N seats.
    listed = [r for r in store.runs(run) if r.kind != CLUE_KIND]
    runs = {r.id: r.name for r in listed}
    status = {r.name: r.status for r in listed}
    acc: dict[MatchupKey, _Acc] = {}
    for g in store.frame(runs).game_totals():
        key = (runs[g.run_id], g.game, g.formulation, g.player, g.opponent)  # names as the store gives them
        a = acc.setdefault(key, _Acc())
        a.games += 1
        a.outcomes[g.outcome] += 1
        if g.outcome == "failure" and g.failure_kind:
            a.failure_kinds[g.failure_kind] += 1
        order = (g.job_key.rsplit("|", 3)[0], g.idx)
        if a.first is None or (g.run_id, *order) < a.first:
            a.first = (g.run_id, *order)
        a.player_moves.add(g.player_moves)
        a.opt.append((order, int(g.optimal), int(g.scored)))
        a.opt_score.append((order, int(g.optimal_s), int(g.scored_s)))
        for k in USAGE:
            a.usage[k] += getattr(g, k)
        if g.cost is not None:
            a.cost = (a.cost or 0.0) + g.cost
        a.tokens.add_sums(int(g.model_moves), g.model_tokens, g.model_tokens_sq)
        if g.payoff is not None:
            a.payoff.add(float(g.payoff))
    recognizers = {}
    for r in store.frame(runs).model_texts():
        if r.game not in recognizers:
            from ..games import GAMES  # OpenSpiel loads only for a store with model moves

            recognizers[r.game] = (
                recognizer(patterns_for(GAMES.get(r.game), recognize)) if r.game in GAMES else None
            )
        a = acc[(runs[r.run_id], r.game, r.formulation, r.player, r.opponent)]
        a.recognition.add(recognizers[r.game], r.reasoning, r.reply)  # trace and reply apart
    found: dict[MatchupKey, EquilibriumFigures] = {}
    if any(has_equilibrium(key[1]) for key in acc):  # what each decision lost against the equilibrium
        from .equilibrium import matchup_equilibrium

        found = matchup_equilibrium(store, runs)
    rows = []
    for key, a in sorted(acc.items(), key=lambda kv: kv[1].first or (0, "", 0)):
        run_name, game, form, player, opponent = key
        opt = _clusters(a.opt)
        opt_s = _clusters(a.opt_score)
        n_s = sum(n for _, n in opt_s)
        rows.append(
            MatchupRow(
                run=run_name,
                status=status[run_name],
                game=game,
                formulation=form,
                player=player,
                opponent=opponent,
                games=a.games,
                wins=a.outcomes["win"],
                draws=a.outcomes["draw"],
                losses=a.outcomes["loss"],
                failures=a.outcomes["failure"],
                failure_kinds=dict(a.failure_kinds),
                win_rate=wilson(a.outcomes["win"], a.games),
                draw_rate=wilson(a.outcomes["draw"], a.games),
                optimality=_rate(sum(k for k, _ in opt), sum(n for _, n in opt), opt),
                moves_per_game=_count_mean(a.player_moves),
                usage=Usage(**{k: int(v) for k, v in a.usage.items()}, cost=a.cost),
                tokens_per_move=_count_mean(a.tokens),
                recognition=a.recognition.estimate(recognition_on, recognize),  # traces (l.114)
                # poker's chips, dice's +1/-1: the mean payoff says more than W/L
                payoff=_mean(a.payoff) if hidden_information(game) else None,
                optimality_score=_rate(sum(k for k, _ in opt_s), n_s, opt_s) if n_s else None,
                equilibrium=found.get(key),
            )
        )
    return rows
