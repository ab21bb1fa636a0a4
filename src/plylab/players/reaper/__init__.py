"""REAPER, the experience-memory agent, with its Original (`memento:`) and Baseline (`cbr:`) variants.

Modules, one concept each: `memory` (the case and rule store, an SQLite file), `encoder` (the
sentence encoder), `retrieval` (stratified k-nearest cases), `schemas` and `prompts` (what the
components exchange), `calls` (cached model calls per component), `loop` (planner-executor),
`descriptor`, `reflector`, `extractor`, and `player` (the three player specs).
"""

from .memory import Case, CaseMemory
from .player import BaselinePlayer, OriginalPlayer, ReaperPlayer, lend_memory
from .retrieval import Retrieved, Retriever, nearest

__all__ = [
    "BaselinePlayer",
    "Case",
    "CaseMemory",
    "OriginalPlayer",
    "ReaperPlayer",
    "Retrieved",
    "Retriever",
    "lend_memory",
    "nearest",
]
