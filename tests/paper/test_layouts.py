"""The papers' tables in their printed layouts (issue 19, points 8-10): two-level headers, Table 14's
rows, rates with their own n beside the paper's counts, no impossible intervals, the published
numbers on their own, Clue's figures and ranges, Fig. 5's every-checkpoint claim, Fig. 6's shared runs."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from plylab.paper.plan import Options, learning_experiments
from plylab.paper.protocols import PROTOCOLS
from plylab.paper.report import show, table_data


@pytest.fixture
def nowhere(tmp_path: Path) -> str:
    return str(tmp_path / "no-store.sqlite")


def test_table7_without_a_store_prints_the_papers_table_with_a_two_level_header(cli, nowhere) -> None:
    r = cli("paper", "report", "table7", "--store", nowhere)
    assert r.code == 0, r.err
    md = r.out
    assert "| Model | source | Random |  |  |  | MCTS |  |  |  | Optimal |  |  |  |" in md
    assert "|  |  | **W** | **D** | **L** | **F** | **W** |" in md
    assert "| GPT-5 nano | paper | 96 | 0 | 4 | 0 | 72 | 0 | 28 | 0 | 44 | 0 | 56 | 0 |" in md
    assert f"the paper's numbers alone: no store at {nowhere}" in md
    assert not Path(nowhere).exists()  # reading never creates a store
    page = cli("paper", "report", "table7", "--store", nowhere, "--format", "html").out
    assert "<th colspan=4>Random</th><th colspan=4>MCTS</th><th colspan=4>Optimal</th>" in page
    assert "<th rowspan=2>Model</th>" in page
    tex = cli("paper", "report", "table7", "--store", nowhere, "--format", "latex").out
    assert r"\multicolumn{4}{c}{Random} & \multicolumn{4}{c}{MCTS}" in tex and r"\cmidrule(lr){3-6}" in tex
    rows = list(
        csv.reader(io.StringIO(cli("paper", "report", "table7", "--store", nowhere, "--format", "csv").out))
    )
    top = next(i for i, row in enumerate(rows) if row and row[0] == "Model")
    assert rows[top][:3] == ["Model", "source", "Random"] and rows[top + 1][:4] == ["", "", "W", "D"]
    text = cli("paper", "report", "table7", "--store", nowhere, "--format", "table").out.splitlines()
    at = next(i for i, line in enumerate(text) if line.split() == ["Random", "MCTS", "Optimal"])
    assert text[at + 2].split()[:4] == ["Model", "source", "W", "D"]  # the group over its sub-columns


def test_table3_groups_win_rate_and_moves_under_each_opponent(nowhere) -> None:
    from plylab.paper import table_layout
    from plylab.render.grid import grid

    layout = table_layout(table_data(Path(nowhere), "table3"))
    header, groups = layout.header, layout.groups
    assert header == ["Model", "source", "Win rate", "Moves", "Win rate", "Moves"]
    assert groups == [("", 2), ("Random", 2), ("MCTS", 2)]
    assert "<th colspan=2>MCTS</th>" in grid(header, [], "html", groups=groups)


def test_table14_rows_are_model_by_measure_and_columns_the_efforts(cli, nowhere) -> None:
    md = cli("paper", "report", "table14", "--store", nowhere).out
    assert "| Model | source | measure | Low | Medium | High |" in md
    assert (
        "| GPT-5 nano | paper | Optimality | .731 [.667, .786] | .843 [.785, .887] | .880 [.828, .918] |"
        in md
    )
    assert "| GPT-5 nano | paper | Tokens per move | 1055.4 ±78.7 | 3526.6 ±293.0 | 7247.8 ±578.1 |" in md


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_counts_of_another_size_are_rates_with_their_n_beside_the_papers_counts(cli, tmp_path) -> None:
    """Issue 19's done-when: `paper run table7 --references --games 20`, then `paper report table7`."""
    store = str(tmp_path / "s.sqlite")
    assert (
        cli("paper", "run", "table7", "--references", "--games", "20", "--store", store, "--quiet").code == 0
    )
    md = cli("paper", "report", "table7", "--store", store).out
    lines = md.splitlines()
    mcts = next(line for line in lines if line.startswith("| mcts:sims=1000") and "| reference |" in line)
    cells = [c.strip() for c in mcts.strip("|").split("|")][2:]
    assert all(c.endswith("(n=20)") for c in cells[:4]) and cells[4:8] == ["–"] * 4  # no MCTS-vs-MCTS row
    assert all(c.endswith("(n=20)") for c in cells[8:])
    assert "| GPT-5 nano | paper | 96 | 0 | 4 | 0 |" in md  # the paper's counts out of 100
    assert "(n=k): a count from a run of k games, not the paper's 100" in md
    assert "20 games per matchup in run paper/table7/reference (paper: 100)" in md
    data = json.loads(cli("paper", "report", "table7", "--store", store, "--format", "json").out)
    [opt] = [r for r in data["reference_rows"] if r["model"] == "optimal"]
    assert opt["cells"]["optimal.W"]["reproduced"]["of"] == 20


def test_an_interval_that_cannot_hold_is_not_printed() -> None:
    from plylab.analysis.results import Mean
    from plylab.paper.report import estimated

    one = estimated(Mean(5.0, 5.0, 5.0, 1), "moves")
    assert one is not None and one.low is None and show(one, "moves") == "5.00 (n=1)"
    below = estimated(Mean(1.5, -0.4, 3.4, 2), "moves")
    assert below is not None and show(below, "moves") == "1.50 (n=2)"
    assert show(estimated(Mean(4.0, 3.0, 5.0, 6), "moves"), "moves") == "4.00 [3.00, 5.00]"


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_clue_tables_without_a_store_show_the_seeds_ranges_and_wins(cli, nowhere, tmp_path) -> None:
    md = cli("paper", "report", "clue-delay", "--store", nowhere).out
    assert "solution confirmed on turns (range)" in md and "18-23" in md and "13-35" in md
    assert "every win of the mixed games (l.126)" in md and "comparable to GPT-4o-mini (l.124)" in md
    r = cli("paper", "report", "clue-accuracy", "--store", nowhere, "--plot", str(tmp_path / "figs"))
    assert r.code == 0, r.err
    assert (tmp_path / "figs" / "clue-accuracy-fig3.png").stat().st_size > 0


def test_fig6_state_mode_agents_are_fig4s_runs() -> None:
    fig4 = {e.name: e for e in learning_experiments(PROTOCOLS["fig4"], Options("local"))}
    fig6 = learning_experiments(PROTOCOLS["fig6"], Options("local"))
    shared = [e for e in fig6 if e.name in fig4]
    assert [e.name for e in shared] == ["paper/fig4/local/Refl.", "paper/fig4/local/Refl. + Rules"]
    assert all(e == fig4[e.name] for e in shared)  # the same experiment: resumed, not played again
    assert [e.name for e in fig6[2:]] == [
        "paper/fig6/local/Refl. + Desc.",
        "paper/fig6/local/Refl. + Desc. + Rules",
    ]


def test_fig5_original_is_compared_at_every_checkpoint(tmp_path) -> None:
    """003 l.188: Original's draw rate is 0 at every checkpoint; a checkpoint before the last that
    draws is marked, though the final one agrees with the paper."""
    from plylab.harness.store import Store
    from plylab.paper.figures import figure_data, render_figure
    from tests.support import records

    agent = "memento:model=m"
    path = tmp_path / "s.sqlite"
    store = Store(path)
    ident = {"name": "paper/fig5/m/Original", "game": "tic_tac_toe", "formulation": "standard"}
    ident |= {"opponent": "optimal", "agent": agent, "seed": 0, "learn_games": 2, "eval_games": 1}
    for run in range(2):
        for c, (outcome, returns) in enumerate((("draw", [0.0, 0.0]), ("loss", [-1.0, 1.0]))):
            # draws at checkpoint 0, none at the last
            plan = {"learn": ident, "run": run, "phase": "eval", "index": c, "games": 1, "player": agent}
            run_id = store.open_run(f"paper/fig5/m/Original/run{run}/eval{c}", 0, plan, kind="learn")
            move = records.move(0, player=agent, optimal=True, informative=True, output_tokens=5, calls=1)
            record = records.game(
                [move],
                job_key=f"r{run}c{c}",
                player=agent,
                opponent="optimal",
                outcome=outcome,
                returns=returns,
            )
            store.save_game(run_id, record)
    store.close()
    data = figure_data(path, "fig5")
    final = next(f for f in data.finals if f.agent == "Original" and f.metric == "draw_rate")
    assert final.outside is False  # the last checkpoint alone would agree with the paper
    marks = [(x.checkpoint, x.outside) for x in data.every_checkpoint if x.agent == "Original"]
    assert marks == [(0, True), (1, False)]
    assert "paper (every checkpoint)" in render_figure(data, "markdown")


def test_plylab_report_outcomes_sets_w_d_l_f_under_each_opponent(cli, tmp_path) -> None:
    from tests.support.cli import run_args

    store = tmp_path / "s.sqlite"
    assert cli(*run_args("nim", "random", "optimal", games=2, store=store)).code == 0
    args = ("report", "--store", str(store), "--table", "outcomes", "--by", "opponent")
    tex = cli(*args, "--format", "latex").out
    assert r"\multicolumn{4}{c}{optimal}" in tex and r"\cmidrule(lr){3-6}" in tex
    md = cli(*args, "--format", "markdown").out.splitlines()
    assert md[2].startswith("|  |  | **W** | **D** | **L** | **F** |")


def test_fig5_dashed_reference_is_section_3s_single_call_player(tmp_path) -> None:
    """003 l.176, l.186: the dashed line is "the single-call GPT-5 nano player from Section 3", i.e.
    Table 2's high-effort run over 100 games, not the learning experiment's own reference phases."""
    from plylab.harness.store import Store
    from plylab.paper.figures import figure_data
    from tests.support import records

    agent, ref = "memento:model=m", "llm:model=m"
    path = tmp_path / "s.sqlite"
    store = Store(path)
    ident = {"name": "paper/fig5/m/Original", "game": "tic_tac_toe", "formulation": "standard"}
    ident |= {"opponent": "optimal", "agent": agent, "seed": 0, "learn_games": 2, "eval_games": 1}
    move = records.move(0, player=agent, optimal=True, informative=True, output_tokens=5, calls=1)
    for phase, player, outcome in (
        ("eval", agent, "loss"),
        ("reference", "llm:model=m,effort=medium", "loss"),
    ):
        plan = {"learn": ident, "run": 0, "phase": phase, "index": 0, "games": 1, "player": player}
        run_id = store.open_run(f"paper/fig5/m/Original/run0/{phase}0", 0, plan, kind="learn")
        rec = records.game([move], job_key=phase, player=player, opponent="optimal", outcome=outcome)
        store.save_game(run_id, rec)
    store.close()
    phases = figure_data(path, "fig5").experiments[0].reference
    assert (
        phases is not None and phases.source == "reference phases" and "Section 3" in (phases.deviation or "")
    )
    store = Store(path)
    run_id = store.open_run("paper/table2/m", 0, {"games": 2})
    for i, outcome in enumerate(("draw", "draw")):
        store.save_game(
            run_id,
            records.game(
                [move], job_key=f"t{i}", player=ref, opponent="optimal", outcome=outcome, returns=[0.0, 0.0]
            ),
        )
    store.close()
    seed = figure_data(path, "fig5").experiments[0].reference
    assert (
        seed is not None and seed.source == "paper/table2/m" and seed.means.metrics["draw_rate"].rate == 1.0
    )
    assert seed.to_json()["draw_rate"] == {"mean": 1.0, "low": 1.0, "high": 1.0, "n": 1}
