"""The numbers the seed papers print, shipped as data (published/*.json), and how to pair models.

Only what a seed prints is here: a cell the paper lacks is absent. PlyBench cells are
{value, low, high} (a 95% interval as printed), {value, pm} (mean ± half-width) or {count};
tests/paper/test_published.py re-parses the seed's text and checks every cell against this file.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable
from functools import cache
from importlib import resources
from typing import Any

# The paper's row labels (003 l.53-56, Table 1) and the provider model names that are the same model.
PAPER_MODELS: dict[str, str] = {
    "GPT-5 nano": r"gpt-5-nano",
    "GPT-5 mini": r"gpt-5-mini",
    "GPT-5.4": r"gpt-5\.4",
    "Gemini 3.1 FL": r"gemini-3\.1-flash-lite",
    "Gemini 3 F": r"gemini-3-flash",
    "Gemini 3.1 Pro": r"gemini-3\.1-pro",
    "GPT-OSS": r"gpt-oss-120b",
    "Qwen 3.5": r"qwen3?\.?5-122b",
    "GLM-5.2": r"glm-5\.2",
}


@cache
def _load(study: str) -> dict[str, Any]:
    text = resources.files("plylab.paper").joinpath("published", f"{study}.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


def published(table: str) -> dict[str, Any]:
    """The seed's numbers for `table` ({} where the paper prints none): rows, source, footnotes."""
    study = "clue" if table.startswith("clue-") else "plybench"
    tables: dict[str, dict[str, Any]] = _load(study)["tables"]
    return tables.get(table, {})


def paper_model(model: str) -> str | None:
    """The paper's row label for a provider model name (e.g. openai/gpt-5-nano -> GPT-5 nano)."""
    name = model.lower()
    for label, pattern in PAPER_MODELS.items():
        if re.search(pattern, name):
            return label
    return None


def interval(c: dict[str, Any] | None) -> tuple[float, float] | None:
    """A published cell's 95% interval (None for a count or a point value)."""
    if not c or "value" not in c:
        return None
    if "low" in c and "high" in c:
        return float(c["low"]), float(c["high"])
    if "pm" in c:
        return float(c["value"]) - float(c["pm"]), float(c["value"]) + float(c["pm"])
    return None


# Where the paper prints tokens per move for a game (Tables 12 and 13 by formulation, 14 by effort).
TOKEN_TABLES = {"tic_tac_toe": ("table12", "table14"), "nim": ("table13",)}


def paper_tokens(table: str | None, model: str, columns: Iterable[str], game: str = "") -> float | None:
    """The paper's mean output tokens per move for `model` in `table`'s matching columns, if it prints them."""
    if table is None:
        return None
    label = paper_model(model)
    if label is None:
        return None
    columns = list(columns)
    for source in (table, *TOKEN_TABLES.get(game, ())):  # a table without tokens: the game's token tables
        row = published(source).get("rows", {}).get(label, {})
        values = [
            float(row[c]["value"]) for c in columns if isinstance(row.get(c), dict) and "value" in row[c]
        ]
        if values:
            return sum(values) / len(values)
    return None


def token_figures(table: str) -> Callable[[str, list[str], str], float | None]:
    """`table`'s published tokens per move, as the run forecast takes them (`harness.forecast.add_tokens`)."""
    return functools.partial(paper_tokens, table)
