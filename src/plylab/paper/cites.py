"""What a seed line reference such as "003 l.66" means, said once wherever such references appear."""

from __future__ import annotations

SEEDS = {
    "003": "Towards Improving Sequential Decision-Making in LLM Agents via Experience Memory "
    "(PlyBench, REAPER)",
    "000": "Clueing up LLMs with Tool-Augmented Deductive Reasoning (Ansell, Toney-Wails; arXiv:2609.18736)",
}

CITE_KEY = (
    "cite: '003 l.66-74' is lines 66-74 of the text of seed paper 003, "
    + SEEDS["003"]
    + "; '000 §4.2' or '000 l.103' the Clue paper, "
    + SEEDS["000"]
    + "."
)
"""The one line that explains the references; `plylab paper list` and `paper report` print it."""
