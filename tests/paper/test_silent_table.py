"""The first paper's choices that the seed leaves open are written down, and the manual shows them."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).parents[2]
TABLE = ROOT / "src" / "plylab" / "paper" / "README.md"


def test_the_manual_shows_the_first_papers_silent_table_and_links_the_clue_one() -> None:
    docs = ROOT / "docs"
    section = docs.joinpath("papers.md").read_text()
    assert "(papers-silent.md)" in section and "(clue.md#where-the-paper-is-silent)" in section
    # the manual's pages are the tables themselves, included from their one home beside the code
    assert '--8<-- "src/plylab/paper/README.md"' in docs.joinpath("papers-silent.md").read_text()
    assert '--8<-- "src/plylab/clue/README.md"' in docs.joinpath("clue.md").read_text()
    assert "## Where the paper is silent" in (ROOT / "src" / "plylab" / "clue" / "README.md").read_text()
    assert TABLE.exists()


def test_the_silent_table_lists_every_choice_plylab_makes_there() -> None:
    text = TABLE.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| choice")]
    choices = " ".join(r.split("|")[1] for r in rows)
    for choice in (
        "prompt",
        "time-out",
        "presentation of a draw",
        "Original's parsing",
        "hidden tic-tac-toe's coordinates",
        "deduplication",
        "parsing the LLM's action",
    ):
        assert choice in choices, choice
    assert "Mistakes to avoid" in text and "l.324" in text and "l.176" in text
