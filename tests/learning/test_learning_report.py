"""The learning report on a hand-built store: per-checkpoint means over runs with Student-t
intervals, the one-sided Welch test on the final checkpoint, the single-call reference, plots."""

from __future__ import annotations

import json

import pytest
from scipy import stats

from plylab.analysis.learning import learning_data, learning_report, plot_learning
from plylab.errors import UserError
from plylab.harness.records import GameRecord
from plylab.harness.store import Store
from tests.support import records

SETTING = {"game": "tic_tac_toe", "formulation": "standard", "opponent": "optimal"}
# draws per run (of 4 games) at checkpoints 0 and 1, for two agents over 3 runs
DRAWS = {"reaper:model=m": [[1, 2, 1], [3, 4, 3]], "cbr:model=m": [[1, 1, 2], [2, 2, 1]]}


def record(player: str, key: str, draw: bool, optimal: list[bool], tokens: int) -> GameRecord:
    moves = [
        records.move(
            2 * i,
            seat=0,
            player=player,
            legal=[0, 1],
            action_label="A1",
            elapsed=0.1,
            optimal=o,
            informative=True,
            output_tokens=tokens,
            calls=1,
        )
        for i, o in enumerate(optimal)
    ]
    return records.game(
        moves,
        job_key=key,
        player=player,
        opponent="optimal",
        returns=[0.0, 0.0] if draw else [-1.0, 1.0],
        outcome="draw" if draw else "loss",
    )


@pytest.fixture
def store_path(tmp_path):
    path = tmp_path / "s.sqlite"
    store = Store(path)
    for agent, per_checkpoint in DRAWS.items():
        name = agent.split(":")[0]
        ident = {"name": name, **SETTING, "agent": agent, "seed": 0, "learn_games": 20, "eval_games": 4}
        for c, draws in enumerate(per_checkpoint):
            for r, d in enumerate(draws):
                plan = {"learn": ident, "run": r, "phase": "eval", "index": c, "games": 4, "player": agent}
                run_id = store.open_run(f"{name}/run{r}/eval{c}", 0, plan, kind="learn")
                for g in range(4):
                    store.save_game(
                        run_id, record(agent, f"{name}{r}{c}{g}", g < d, [True, g < 2], 10 * (c + 1))
                    )
        if name == "cbr":  # `plylab learn --reference`: a reference phase per run
            for r in range(2):
                plan = {
                    "learn": ident,
                    "run": r,
                    "phase": "reference",
                    "index": 0,
                    "games": 2,
                    "player": "llm:x",
                }
                run_id = store.open_run(f"{name}/run{r}/reference", 0, plan, kind="learn")
                for g in range(2):
                    store.save_game(run_id, record("llm:x", f"cref{r}{g}", r == 0, [True], 30))
    ref = store.open_run("single-call", 0, {"matchups": []})
    for g in range(4):
        store.save_game(ref, record("llm:model=m", f"ref{g}", g < 3, [True, True], 40))
    store.close()
    return path


def test_checkpoints_are_means_over_runs_with_student_t_intervals(store_path):
    store = Store(store_path, create=False)
    data = learning_data(store)
    store.close()
    reaper = next(e for e in data.experiments if e.agent == "reaper:model=m")
    final = reaper.checkpoints[1]
    rates = [d / 4 for d in DRAWS["reaper:model=m"][1]]
    low, high = stats.t.interval(0.95, 2, loc=sum(rates) / 3, scale=stats.sem(rates))
    assert final.means.runs == 3 and final.learning_games == 20
    draw = final.means.metrics["draw_rate"]
    assert draw.rate == pytest.approx(sum(rates) / 3) and draw.n == 3
    assert (draw.low, draw.high) == (pytest.approx(low), pytest.approx(high))
    assert final.to_json()["draw_rate"] == {"mean": draw.rate, "low": draw.low, "high": draw.high, "n": 3}
    metrics = final.means.metrics
    assert metrics["optimality"].rate == pytest.approx(0.75) and metrics["tokens_per_move"].rate == 20
    assert reaper.reference is not None and reaper.reference.player == "llm"
    assert reaper.reference.means.metrics["draw_rate"].rate == 0.75
    cbr = next(e for e in data.experiments if e.agent == "cbr:model=m")
    assert cbr.reference is not None and cbr.reference.player == "llm:x" and cbr.reference.means.runs == 2
    assert cbr.reference.means.metrics["draw_rate"].rate == 0.5
    test = next(t for t in data.comparisons if t.metric == "draw_rate")
    a = [d / 4 for d in DRAWS["reaper:model=m"][1]]
    b = [d / 4 for d in DRAWS["cbr:model=m"][1]]
    expected = stats.ttest_ind(a, b, equal_var=False, alternative="greater").pvalue
    assert (test.better, test.worse) == ("reaper", "cbr") and test.p_value == pytest.approx(expected)


@pytest.mark.slow
def test_report_formats_and_unknown_experiment(store_path):
    data = json.loads(learning_report(store_path, "cbr", "json"))
    assert [e["name"] for e in data["experiments"]] == ["cbr"] and data["comparisons"] == []
    md = learning_report(store_path, None, "markdown")
    assert "| reaper:model=m | 1 | 3 |" in md and "one-sided Welch p" in md
    assert "reference (llm)" in learning_report(store_path, None, "table")
    assert learning_report(store_path, None, "csv").startswith("agent,checkpoint,runs")
    with pytest.raises(UserError, match="no learning experiment 'nope'"):
        learning_report(store_path, "nope", "json")
    tex = learning_report(store_path, None, "latex")
    assert tex.startswith(r"\begin{tabular}") and r"reaper:model=m & 1 & 3 &" in tex
    assert r"\end{tabular}" in tex and "% " in tex and "Welch" in tex  # the comparisons as comments
    with pytest.raises(UserError, match="unknown format 'yaml'"):
        learning_report(store_path, None, "yaml")


@pytest.mark.slow
def test_plots_are_written_as_png_and_svg(store_path, tmp_path):
    paths = plot_learning(store_path, None, tmp_path / "plots")
    assert sorted(p.name for p in paths) == [
        "learning-tic_tac_toe-standard-optimal-draw_rate.png",
        "learning-tic_tac_toe-standard-optimal-draw_rate.svg",
        "learning-tic_tac_toe-standard-optimal-tokens_per_move.png",
        "learning-tic_tac_toe-standard-optimal-tokens_per_move.svg",
    ]
    assert "single-call reference" in (tmp_path / "plots" / paths[1].name).read_text()


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_a_spec_reads_canonically_in_the_report_and_the_plot_but_the_store_keeps_its_names(tmp_path):
    """`force_final=on` was printed as given in `report --learning` and the plot's legend (and in
    the experiment's name) though every table writes `force_final=true`: one name everywhere."""
    agent = "reaper:model=m,force_final=on"
    label = f"learn.tic_tac_toe.standard.{agent}-vs-optimal.s0"  # the name `plylab learn` makes
    path = tmp_path / "s.sqlite"
    store = Store(path)
    ident = {"name": label, **SETTING, "agent": agent, "seed": 0, "learn_games": 20, "eval_games": 2}
    for r in range(2):
        plan = {"learn": ident, "run": r, "phase": "eval", "index": 0, "games": 2, "player": agent}
        run_id = store.open_run(f"{label}/run{r}/eval0", 0, plan, kind="learn")
        for g in range(2):
            store.save_game(run_id, record(agent, f"k{r}{g}", g == 0, [True], 10))
    store.close()
    shown = "reaper:model=m,force_final=true"
    for fmt in ("table", "markdown", "csv", "latex", "json"):
        text = learning_report(path, None, fmt).replace(r"\_", "_")  # LaTeX escapes `_`
        if fmt == "json":  # the stored name, as made, is there once, as `name` (the key)
            text = text.replace(json.dumps(label), "", 1)
        assert shown in text and "force_final=on" not in text, fmt
    opened = Store(path, create=False)
    (e,) = learning_data(opened).experiments
    assert e.agent == shown and e.shown_name == label.replace(agent, shown) and e.name == label
    # the experiment is found by either name; the store's runs keep the names they were made with
    assert learning_data(opened, label).experiments[0].agent == shown
    assert learning_data(opened, e.shown_name).experiments[0].agent == shown
    assert all("force_final=on" in r.name for r in opened.runs())
    opened.close()
    svg = next(p for p in plot_learning(path, None, tmp_path / "plots") if p.suffix == ".svg")
    assert "force_final=true" in svg.read_text() and "force_final=on" not in svg.read_text()  # the legend
