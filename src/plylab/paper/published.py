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
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from ..jsontypes import JSONObject, JSONValue

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
def _load(study: str) -> JSONObject:
    text = resources.files("plylab.paper").joinpath("published", f"{study}.json").read_text()
    data: JSONObject = json.loads(text)
    return data


def _object(value: JSONValue | None) -> JSONObject:
    return value if isinstance(value, dict) else {}


def _numbers(value: JSONValue | None) -> dict[str, dict[str, float]]:
    return {
        label: {k: float(v) for k, v in _object(metrics).items() if isinstance(v, int | float)}
        for label, metrics in _object(value).items()
    }


@dataclass(frozen=True)
class Published:
    """What the seed prints for one table or figure (published/*.json), as the files hold it: rows of
    cells by row label, footnotes, and a figure's final values, every-checkpoint values and tests."""

    source: str = ""
    rows: dict[str, JSONObject] = field(default_factory=dict)
    footnotes: JSONObject = field(default_factory=dict)
    final: dict[str, dict[str, float]] = field(default_factory=dict)  # agent -> metric -> value
    all_checkpoints: dict[str, dict[str, float]] = field(default_factory=dict)
    welch: list[JSONObject] = field(default_factory=list)
    model: str | None = None
    text: str | None = None

    @classmethod
    def of(cls, raw: JSONObject) -> Published:
        source, model, text, welch = raw.get("source"), raw.get("model"), raw.get("text"), raw.get("welch")
        return cls(
            source=source if isinstance(source, str) else "",
            rows={k: v for k, v in _object(raw.get("rows")).items() if isinstance(v, dict)},
            footnotes=_object(raw.get("footnotes")),
            final=_numbers(raw.get("final")),
            all_checkpoints=_numbers(raw.get("all_checkpoints")),
            welch=[w for w in welch if isinstance(w, dict)] if isinstance(welch, list) else [],
            model=model if isinstance(model, str) else None,
            text=text if isinstance(text, str) else None,
        )


def published(table: str) -> Published:
    """The seed's numbers for `table` (empty where the paper prints none)."""
    study = "clue" if table.startswith("clue-") else "plybench"
    return Published.of(_object(_object(_load(study).get("tables")).get(table)))


def paper_model(model: str) -> str | None:
    """The paper's row label for a provider model name (e.g. openai/gpt-5-nano -> GPT-5 nano)."""
    name = model.lower()
    for label, pattern in PAPER_MODELS.items():
        if re.search(pattern, name):
            return label
    return None


@dataclass(frozen=True)
class PublishedCell:
    """A cell the paper prints: {value, low, high} (a 95% interval as printed), {value, pm} (mean ±
    half-width) or {count}; `dagger` where the paper marks it with its footnote †."""

    value: float | None = None
    low: float | None = None
    high: float | None = None
    pm: float | None = None
    count: int | None = None
    dagger: bool | None = None

    @property
    def units(self) -> int | None:
        """None: the paper prints no n beside its numbers."""
        return None

    @classmethod
    def from_json(cls, c: JSONObject) -> PublishedCell:
        def number(key: str) -> float | None:
            v = c.get(key)
            return v if isinstance(v, int | float) and not isinstance(v, bool) else None

        count, dagger = c.get("count"), c.get("dagger")
        return cls(
            value=number("value"),
            low=number("low"),
            high=number("high"),
            pm=number("pm"),
            count=count if isinstance(count, int) else None,
            dagger=dagger if isinstance(dagger, bool) else None,
        )

    def to_json(self) -> JSONObject:
        """The cell as the published data hold it (only the keys it has)."""
        found: dict[str, JSONValue] = {
            "value": self.value,
            "low": self.low,
            "high": self.high,
            "pm": self.pm,
            "count": self.count,
            "dagger": self.dagger,
        }
        return {k: v for k, v in found.items() if v is not None}

    def interval(self) -> tuple[float, float] | None:
        """The cell's 95% interval (None for a count or a point value)."""
        if self.value is None:
            return None
        if self.low is not None and self.high is not None:
            return self.low, self.high
        if self.pm is not None:
            return self.value - self.pm, self.value + self.pm
        return None


def published_rows(table: str) -> dict[str, dict[str, PublishedCell]]:
    """The paper's rows of `table`: per row label (a model), its cells by column key."""
    rows = published(table).rows
    return {
        label: {key: PublishedCell.from_json(c) for key, c in cells.items() if isinstance(c, dict)}
        for label, cells in rows.items()
    }


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
        row = published(source).rows.get(label, {})
        values = [float(v) for c in columns if isinstance(v := _object(row.get(c)).get("value"), int | float)]
        if values:
            return sum(values) / len(values)
    return None


def token_figures(table: str) -> Callable[[str, list[str], str], float | None]:
    """`table`'s published tokens per move, as the run forecast takes them (`harness.forecast.add_tokens`)."""
    return functools.partial(paper_tokens, table)
