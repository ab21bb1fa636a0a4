"""The shipped published numbers are the seeds' numbers: every cell re-parsed from the seed text."""

from __future__ import annotations

import pytest

from plylab.paper.protocols import PLYBENCH, PROTOCOLS
from plylab.paper.published import paper_model, published
from tests.paper.seed_tables import BODIES, SEEDS, parse_table

NAMES = [f"table{i}" for i in range(2, 15)] + [
    "fig4",
    "fig5",
    "fig6",
    "clue-accuracy",
    "clue-deduction",
    "clue-knowledge",
    "clue-delay",
]


def test_every_table_and_figure_of_both_seeds_is_registered():
    assert list(PROTOCOLS) == NAMES


@pytest.mark.skipif(not (SEEDS / PLYBENCH).exists(), reason="the seed text is not on this machine")
@pytest.mark.parametrize("name", list(BODIES))
def test_published_cells_equal_the_seed_text(name):
    lines = (SEEDS / PLYBENCH).read_text().splitlines()
    expected = parse_table(lines, name, [c.key for c in PROTOCOLS[name].columns])
    assert published(name).rows == expected


@pytest.mark.parametrize("name", list(BODIES))
def test_published_columns_are_the_protocol_columns(name):
    keys = {c.key for c in PROTOCOLS[name].columns}
    rows = published(name).rows
    assert rows, name
    for model, cells in rows.items():
        assert set(cells) == keys, (name, model)


def test_intervals_contain_their_values():
    for name in BODIES:
        for cells in published(name).rows.values():
            for c in cells.values():
                if "low" in c:
                    assert c["low"] <= c["value"] <= c["high"], (name, c)


def test_counts_out_of_100_games():
    for name in ("table6", "table7"):
        for model, cells in published(name).rows.items():
            for opp in ("random", "mcts", "optimal"):
                total = sum(cells[f"{opp}.{k}"]["count"] for k in "WDLF")
                # Table 7's Qwen 3.5 row reads 81 0 18 1 against MCTS: 100 games.
                assert total == 100, (name, model, opp, total)


def test_figure_and_clue_numbers_as_printed():
    assert published("fig5").final["REAPER"]["draw_rate"] == 0.868
    assert published("fig5").final["Baseline"]["draw_rate"] == 0.818
    assert published("fig4").welch[0]["p_value"] == 0.039
    assert published("clue-accuracy").rows["matrix"]["identified"]["value"] == 0.945
    assert published("clue-delay").rows["matrix / GPT-4o-mini"]["ready_gap"]["value"] == 11.1


def test_provider_names_pair_with_paper_rows():
    assert paper_model("openai/gpt-5-nano") == "GPT-5 nano"
    assert paper_model("google/gemini-3.1-pro-preview") == "Gemini 3.1 Pro"
    assert paper_model("local") is None
