"""What the protocol implies without any language model (issue 13 point 4), checked for real:
exact game values, optimal vs optimal under every formulation, the paper's MCTS against Random and
Optimal as reference rows, the learning schedule, and the Welch test on known inputs."""

from __future__ import annotations

import math
from dataclasses import asdict

import numpy as np
import pytest
from scipy import stats

from plylab.analysis.metrics import matchup_results
from plylab.analysis.stats import welch_one_sided
from plylab.games import GAMES
from plylab.harness.plan import Matchup, Plan
from plylab.harness.runner import run_plan
from plylab.harness.store import Store
from plylab.learning import run_phases
from plylab.paper.plan import Options, learning_experiments, reference_plan
from plylab.paper.protocols import PROTOCOLS
from plylab.paper.report import disjoint


@pytest.mark.parametrize(("game", "value"), [("tic_tac_toe", 0), ("nim", -1), ("connect_four", 1)])
def test_game_values_under_optimal_play(game, value):
    """tic-tac-toe a draw, Nim {1,3,5,7} a loss for the player to move (a second-player win),
    Connect Four a first-player win (003 l.60, l.202)."""
    d = GAMES.get(game)
    assert d.oracle().move_values(d.new_state()).value == value


def _games(store_path, name):
    s = Store(store_path, create=False)
    try:
        run_ids = [r.id for r in s.runs(name)]
        return [asdict(g) for g in s.games(run_ids)], matchup_results(s, name)
    finally:
        s.close()


@pytest.mark.slow
def test_optimal_vs_optimal_under_every_formulation(tmp_path):
    """Obfuscations keep the game tree (003 l.96): optimal play gives the game's value in each one:
    tic-tac-toe always drawn, Nim always won by the second player, Connect Four by the first."""
    store = tmp_path / "s.sqlite"
    winner_seat = {"tic_tac_toe": None, "nim": 1, "connect_four": 0}
    sizes = {"tic_tac_toe": 4, "nim": 4, "connect_four": 2}
    for g, seat in winner_seat.items():
        forms = GAMES.get(g).formulations.names()
        plan = Plan(f"oo-{g}", 0, sizes[g], [Matchup(g, f, "optimal", "optimal") for f in forms]).validate()
        assert run_plan(plan, store, progress=False).status == "finished"
        games, rows = _games(store, f"oo-{g}")
        assert {r.formulation for r in rows} == set(forms) and len(games) == sizes[g] * len(forms)
        for game in games:
            expected = "draw" if seat is None else ("win" if game["player_seat"] == seat else "loss")
            assert game["outcome"] == expected, (g, game["formulation"], game["player_seat"], game["outcome"])
        for r in rows:
            assert r.failures == 0 and r.optimality.rate in (1.0, None), (g, r.formulation)


def test_reference_rows_mcts_at_the_paper_budget(tmp_path):
    """The paper's MCTS (n=1000, solve=true) vs Random and vs Optimal on tic-tac-toe: it never
    beats Optimal; Optimal never loses to it; W/D/L come with Wilson intervals."""
    plan = reference_plan(PROTOCOLS["table6"], games=6)
    assert {m.player for m in plan.matchups} == {"mcts:sims=1000,solve=true", "optimal"}
    store = tmp_path / "s.sqlite"
    assert run_plan(plan, store, progress=False).status == "finished"
    from plylab.paper.report import table_data

    data = table_data(store, "table6")
    refs = {(r.player, r.opponent): r for r in data.references}
    mcts = "mcts:sims=1000"  # reports name a player canonically (solve=true is the default)
    assert set(refs) == {
        (mcts, "random"),
        (mcts, "optimal"),
        ("optimal", "random"),
        ("optimal", mcts),
        ("optimal", "optimal"),
    }
    assert refs[(mcts, "optimal")].W == 0
    assert refs[("optimal", mcts)].L == 0
    assert refs[("optimal", "optimal")].D == 6
    for r in refs.values():
        assert r.W + r.D + r.L + r.F == r.games == 6
        wr = r.win_rate
        assert wr is not None and wr.low is not None and wr.high is not None
        assert wr.low <= wr.value <= wr.high
    # the paper's model rows are all there beside the (absent) reproduced ones
    assert [row.model for row in data.rows][:2] == ["GPT-5 nano", "Gemini 3.1 FL"]


def test_learning_schedule_is_the_papers():
    """50 evaluation games on empty memory, then 5 x (20 learning + 50 evaluation), 10 runs (003 l.168)."""
    exps = learning_experiments(PROTOCOLS["fig5"], Options("local"))
    assert [e.name.rsplit("/", 1)[-1] for e in exps] == ["Original", "Baseline", "REAPER"]
    for e in exps:
        assert e.runs == 10
        phases = [(p.kind, p.games) for p in run_phases(e, 0) if p.kind != "reference"]
        assert phases == [("eval", 50)] + [("learn", 20), ("eval", 50)] * 5
        assert "effort=medium" in e.agent  # 003 l.162
    assert exps[0].reference == "llm:model=local,effort=medium"
    assert [p.kind for p in run_phases(exps[0], 3)][:2] == ["eval", "reference"]


def test_welch_one_sided_matches_the_textbook_formula():
    """Welch's t with Satterthwaite degrees of freedom, computed by hand, against plylab's test."""
    a = [0.90, 0.86, 0.88, 0.84, 0.92, 0.86, 0.88, 0.90, 0.82, 0.86]
    b = [0.80, 0.84, 0.82, 0.78, 0.86, 0.80, 0.84, 0.82, 0.76, 0.86]
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    t = (np.mean(a) - np.mean(b)) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    expected = float(stats.t.sf(t, df))
    assert welch_one_sided(a, b) == pytest.approx(expected, rel=1e-12)
    assert welch_one_sided(b, a) == pytest.approx(1 - expected, rel=1e-12)
    assert welch_one_sided([1.0], b) is None


def test_interval_overlap_marks():
    from plylab.paper.published import PublishedCell
    from plylab.paper.report import Counted, Estimated

    paper = PublishedCell(value=0.9, low=0.8, high=0.95)
    assert disjoint(Estimated(0.5, 0.4, 0.6, 100), paper) is True
    assert disjoint(Estimated(0.5, 0.4, 0.85, 100), paper) is False
    assert disjoint(Estimated(7000.0, 6000.0, 8000.0, 100), PublishedCell(value=7247.8, pm=578.1)) is False
    assert disjoint(Counted(0, 100), PublishedCell(count=50)) is True  # counts: Wilson over 100 games
    assert disjoint(None, paper) is None
