"""The first paper's choices that the seed leaves open are written down, and README links them."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).parents[2]
TABLE = ROOT / "src" / "plylab" / "paper" / "README.md"


def test_readme_links_the_first_papers_silent_table() -> None:
    section = (
        ROOT.joinpath("README.md").read_text().split("## Reproducing the papers", 1)[1].split("\n## ", 1)[0]
    )
    assert "(src/plylab/paper/README.md)" in section and "clue/README.md" in section
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
