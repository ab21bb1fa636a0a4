"""Per-matchup metrics from the store: outcomes, per-move optimality, usage, tokens, recognition."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..games import GAMES
from ..harness.store import Store
from .recognition import recognizer
from .stats import cluster_bootstrap, student_t, wilson

OUTCOMES = ("win", "draw", "loss", "failure")


def _rate(successes: int, n: int, clusters: list[tuple[int, int]]) -> dict[str, Any]:
    w = wilson(successes, n)
    c = cluster_bootstrap(clusters)
    return {"rate": w.rate, "low": w.low, "high": w.high, "scored": n, "cluster_low": c.low, "cluster_high": c.high}


def _mean(values: list[float]) -> dict[str, Any]:
    e = student_t(values)
    return {"mean": e.rate, "low": e.low, "high": e.high, "n": e.n}


@dataclass
class _Acc:
    games: int = 0
    outcomes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    failure_kinds: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    opt: list[tuple[int, int]] = field(default_factory=list)
    opt_score: list[tuple[int, int]] = field(default_factory=list)
    tokens: list[float] = field(default_factory=list)
    player_moves: list[float] = field(default_factory=list)
    recognized: int = 0
    traces: int = 0
    usage: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(
            ("calls", "cache_hits", "input_tokens", "output_tokens", "reasoning_tokens"), 0
        )
    )
    cost: float | None = None


def matchup_rows(store: Store, run: str | None = None) -> list[dict[str, Any]]:
    """One row per (run, game, formulation, player, opponent), from the player's side."""
    runs = {r["id"]: r["name"] for r in store.runs(run)}
    # Job order, not finishing order: parallel backends store games in any order, and the
    # bootstrap must see the same clusters in the same order for identical runs.
    games = sorted(store.games(runs.keys()), key=lambda g: (g["run_id"], g["job_key"].rsplit("|", 3)[0], g["idx"]))
    moves = store.moves_for_games(g["id"] for g in games)
    acc: dict[tuple[str, str, str, str, str], _Acc] = {}
    for g in games:
        key = (runs[g["run_id"]], g["game"], g["formulation"], g["player"], g["opponent"])
        a = acc.setdefault(key, _Acc())
        a.games += 1
        a.outcomes[g["outcome"]] += 1
        if g["outcome"] == "failure" and g["failure_kind"]:
            a.failure_kinds[g["failure_kind"]] += 1
        recognize = recognizer(tuple(GAMES.get(g["game"]).recognition)) if g["game"] in GAMES else None
        mine = [m for m in moves[g["id"]] if m["seat"] == g["player_seat"]]
        a.player_moves.append(sum(1 for m in mine if m["action"] is not None))
        scored = [m for m in mine if m["action"] is not None and m["informative"] == 1]
        a.opt.append((sum(m["optimal"] for m in scored), len(scored)))
        scored_s = [m for m in mine if m["action"] is not None and m["informative_score"] == 1]
        a.opt_score.append((sum(m["optimal_score"] for m in scored_s), len(scored_s)))
        for m in mine:
            for k in a.usage:
                a.usage[k] += m[k]
            if m["cost"] is not None:
                a.cost = (a.cost or 0.0) + m["cost"]
            if m["calls"] + m["cache_hits"] > 0:
                a.tokens.append(m["output_tokens"])
                text = " ".join(t for t in (m["reasoning"], m["reply"]) if t)
                if recognize is not None and text:
                    a.traces += 1
                    a.recognized += bool(recognize.search(text))
    rows = []
    for (run_name, game, form, player, opponent), a in acc.items():
        opt_k = sum(k for k, _ in a.opt)
        opt_n = sum(n for _, n in a.opt)
        row: dict[str, Any] = {
            "run": run_name, "game": game, "formulation": form, "player": player, "opponent": opponent,
            "games": a.games, "wins": a.outcomes["win"], "draws": a.outcomes["draw"],
            "losses": a.outcomes["loss"], "failures": a.outcomes["failure"],
            "failure_kinds": dict(a.failure_kinds),
            "win_rate": wilson(a.outcomes["win"], a.games).as_dict(),
            "draw_rate": wilson(a.outcomes["draw"], a.games).as_dict(),
            "optimality": _rate(opt_k, opt_n, a.opt),
            "moves_per_game": _mean(a.player_moves),
            "usage": {**{k: int(v) for k, v in a.usage.items()}, "cost": a.cost},
            "tokens_per_move": _mean(a.tokens),
            "recognition": wilson(a.recognized, a.traces).as_dict(),
        }
        n_s = sum(n for _, n in a.opt_score)
        if n_s:
            row["optimality_score"] = _rate(sum(k for k, _ in a.opt_score), n_s, a.opt_score)
        rows.append(row)
    return rows
