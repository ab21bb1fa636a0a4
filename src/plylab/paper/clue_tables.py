"""The Clue study's four results (000 §4.1-4.4) from `clue.metrics.report`, the seed's values beside.

Rows are conditions (pooled over their LLM players) and condition / player; the seed prints
point values and ranges only, so there is no interval test here: a paper value sits beside the
reproduced one, and `missing` marks a value the paper has and the store lacks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..jsontypes import JSONObject, JSONScalar, JSONValue
from ..render.grid import comment, html_page
from ..render.table import Table, register_table, render
from ..specs import parse_spec
from ..words import count
from .protocols import PROTOCOLS, Protocol, deviations_line, get_protocol
from .published import published

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..clue.metrics import ConditionMetrics, Delays, PlayerMetrics
    from ..clue.records import ClueRun

CellValue = JSONScalar  # a reproduced cell: a number, a text such as "3/5", or None
Getter = Callable[["PlayerMetrics"], CellValue]


def _model_game(g: PlayerMetrics, kind: str) -> float | None:
    """A row's deductions of `kind` per game with its seats summed."""
    return g.deductions.per_model_game.per_game(kind)


def _ready(g: PlayerMetrics) -> str | None:
    r = g.accusation_delay.ready
    return None if not r else f"{r.became_ready}/{r.players}"


def _ready_gap(g: PlayerMetrics) -> float | None:
    r = g.accusation_delay.ready
    return None if not r else r.gap.mean


COLUMNS: dict[str, list[tuple[str, str, Getter]]] = {
    "clue-accuracy": [
        ("identified", "identified (3 cards)", lambda g: g.identified.rate),
        ("two_cards", "2 cards", lambda g: g.identified.cards_right["2"]),
        ("one_card", "1 card", lambda g: g.identified.cards_right["1"]),
        ("no_card", "0 cards", lambda g: g.identified.cards_right["0"]),
        ("accusation_accuracy", "accusation accuracy", lambda g: g.accusation_accuracy),
    ],
    "clue-deduction": [
        # the seed's unit (000 l.107: "per game" for each model): the row's seats of a game summed
        ("correct_per_game", "correct / game (seats summed)", lambda g: _model_game(g, "correct")),
        ("incorrect_per_game", "incorrect / game (seats summed)", lambda g: _model_game(g, "incorrect")),
        (
            "unsupported_per_game",
            "unsupported / game (seats summed)",
            lambda g: _model_game(g, "unsupported"),
        ),
        # and per player-game (one seat in one game)
        ("correct_per_player_game", "correct / player-game", lambda g: g.deductions.correct_per_game),
        ("incorrect_per_player_game", "incorrect / player-game", lambda g: g.deductions.incorrect_per_game),
        (
            "unsupported_per_player_game",
            "unsupported / player-game",
            lambda g: g.deductions.unsupported_per_game,
        ),
    ],
    "clue-knowledge": [
        ("rounds", "rounds played (max)", lambda g: len(g.knowledge_curve.rounds) or None),
        (
            "final_known",
            "cards known, last round",
            lambda g: g.knowledge_curve.rounds[-1].stated if g.knowledge_curve.rounds else None,
        ),
        ("ceiling", "ceiling", lambda g: g.knowledge_curve.ceiling),
    ],
    "clue-delay": [
        ("ready", "accusation-ready players", _ready),
        ("ready_gap", "ready -> accusation (turns)", _ready_gap),
        (
            "suggested_to_accusation",
            "solution suggested -> accusation (mean, range)",
            lambda g: _range(g.accusation_delay.from_solution_suggested),
        ),
        ("wins", "wins", lambda g: g.wins),
    ],
}
# Columns of a condition only (from its games, not its players).
CONDITION_COLUMNS: dict[str, list[tuple[str, str]]] = {
    "clue-delay": [
        ("confirmed_turns", "solution confirmed on turns (range)"),
        ("first_suggester_won", "first suggester won"),
    ]
}


def _range(d: Delays) -> str | None:
    if not d.n:
        return None
    return f"{d.mean:.1f} ({d.min}-{d.max})"


def _fmt(v: JSONValue, paper_has: bool = False) -> str:
    if v is None:
        return "missing" if paper_has else "–"
    if isinstance(v, float):
        return f"{v:.3f}".rstrip("0").rstrip(".") or "0"
    return str(v)


def _paper(c: JSONValue) -> str:
    if not isinstance(c, dict) or not c:
        return "–"
    if "of" in c:
        return f"{c['value']}/{c['of']}"
    if "low" in c and "value" not in c:
        return f"{c['low']}-{c['high']}" + (f" ({c['text']})" if c.get("text") else "")
    if "value" in c:
        return _fmt(c["value"])
    return str(c.get("text", "–"))


def _at(value: JSONValue, *keys: str) -> JSONValue:
    """`value[k1][k2]...` of the seed's published JSON; None where a key is missing."""
    for k in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(k)
    return value


def _number(value: JSONValue) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def _model_of(spec: str) -> str:
    m = re.search(r"model=([^,]+)", spec)
    return m.group(1) if m else spec


def _same_model(paper_label: str, spec: str) -> bool:
    key = paper_label.lower().replace(" ", "-")
    return key in _model_of(spec).lower()


# The seed's setting (000 l.57, l.82, l.95): six seats, three per model, the two models below, six
# games per condition; it states no turn limit, so plylab's default (clue.engine) stands in for it.
PAPER_MODELS = ("GPT-4o-mini", "Gemini-2.5-Flash")
PAPER_SEATS_PER_MODEL = 3


def _deviations(runs: list[ClueRun], games: dict[str, int], p: Protocol) -> list[str]:
    """What this store's Clue runs of the table's conditions changed from the seed's setting: seats,
    models, turn limit, games per condition and player options, as PlyBench's tables name theirs."""
    from ..clue.engine import DEFAULT_TURN_LIMIT

    out: set[str] = set()
    paper_models = " and ".join(PAPER_MODELS)
    for run in runs:
        seats = len(run.specs)
        models = [_model_of(spec) for spec in run.specs]
        if seats != PAPER_SEATS_PER_MODEL * len(PAPER_MODELS):
            out.add(f"{seats} seats in {run.condition} (paper: 6, three per model)")
        for model in sorted(set(models)):
            if not any(_same_model(label, f"model={model}") for label in PAPER_MODELS):
                out.add(f"model {model} (paper: {paper_models})")
            elif models.count(model) != PAPER_SEATS_PER_MODEL:
                out.add(f"{models.count(model)} seats of {model} in {run.condition} (paper: three per model)")
        if run.turn_limit != DEFAULT_TURN_LIMIT:
            out.add(
                f"turn limit {run.turn_limit} in {run.condition} "
                f"(the paper states none; plylab's default {DEFAULT_TURN_LIMIT})"
            )
        for spec in run.specs:
            options = parse_spec(spec, kind="Clue player spec").options
            extra = {k: v for k, v in options.items() if k not in ("model", "matrix")}
            if extra:
                out.add(
                    "player options " + ",".join(f"{k}={v}" for k, v in extra.items()) + " (not the paper's)"
                )
    for condition, n in games.items():
        if n != p.games_per_matchup:
            out.add(f"{count(n, 'game')} in {condition} (paper: {p.games_per_matchup})")
    return sorted(out)


@dataclass(frozen=True)
class ClueRow:
    """One row of a Clue table: a condition pooled over its players, one (condition, player) row, or a
    row only the paper has; the paper's cells beside."""

    row: str
    source: str  # "this run" | "paper"
    cells: dict[str, CellValue]
    paper: JSONObject | None
    player: bool = False  # a (condition, player) row: it names its twin in the paper (paper_row)
    paper_row: str | None = None

    def to_json(self) -> JSONObject:
        out: JSONObject = {
            "row": self.row,
            "source": self.source,
            "cells": dict(self.cells),
            "paper": self.paper,
        }
        return out | {"paper_row": self.paper_row} if self.player else out


@dataclass(frozen=True)
class ClueResults:
    """A Clue table as data: this run's rows (conditions and players) and the seed's beside them."""

    table: str
    title: str
    cite: list[str]
    protocol: JSONObject
    columns: list[tuple[str, str]]  # (key, label)
    rows: list[ClueRow]
    note: str
    conditions: dict[str, ConditionMetrics]
    groups: list[PlayerMetrics]
    published: JSONObject
    store: str | None
    store_note: str | None
    truncated: int  # model replies cut off at max_tokens (recorded passes): none at the paper's cap
    deviations: list[str]  # what the runs changed from the seed's setting (seats, models, turn limit)

    def to_json(self) -> JSONObject:
        return {
            "table": self.table,
            "title": self.title,
            "cite": list(self.cite),
            "protocol": self.protocol,
            "columns": [{"key": k, "label": lab} for k, lab in self.columns],
            "rows": [r.to_json() for r in self.rows],
            "note": self.note,
            "conditions": {k: c.to_json() for k, c in self.conditions.items()},
            "groups": [g.to_json() for g in self.groups],
            "published": self.published,
            "store": self.store,
            "store_note": self.store_note,
            "truncated": self.truncated,
            "deviations": list(self.deviations),
        }


def clue_data(store_path: Path | None, name: str) -> ClueResults:
    """The Clue table as data, the seed's values beside (the seed's alone without a store)."""
    from ..clue.metrics import report as clue_report
    from ..clue.records import ClueRecords

    p = get_protocol(name)
    pub = published(name)
    conditions: dict[str, ConditionMetrics] = {}
    all_groups: list[PlayerMetrics] = []
    missing = None
    runs: list[ClueRun] = []
    if store_path is not None:
        try:
            store = ClueRecords(store_path)
        except UserError as exc:  # no Clue tables there: the seed's numbers alone, saying why
            missing = str(exc)
        else:
            try:
                data = clue_report(store)
                runs = [r for r in store.runs() if r.condition in p.conditions]
            finally:
                store.close()
            conditions, all_groups = data.conditions, data.groups
    groups = [g for g in all_groups if g.condition in p.conditions]
    cols = COLUMNS[name]
    rows: list[ClueRow] = []
    paper_rows = pub.rows
    used: set[str] = set()
    for cond in p.conditions:
        mine = [g for g in groups if g.condition == cond]
        if not mine:
            continue
        pooled = _pool(mine, cols)
        if name == "clue-delay":
            c = conditions.get(cond)
            pooled["first_suggester_won"] = f"{c.first_suggester_won if c else 0}/{c.games if c else 0}"
            turns = c.confirmed_turns if c else []
            pooled["confirmed_turns"] = f"{min(turns)}-{max(turns)}" if turns else None
        rows.append(ClueRow(cond, "this run", pooled, paper_rows.get(cond)))
        used.add(cond)
        for g in mine:
            twin = next(
                (
                    lab
                    for lab in paper_rows
                    if lab.startswith(cond + " / ") and _same_model(lab.split(" / ", 1)[1], g.spec)
                ),
                None,
            )
            cells = {k: get(g) for k, _, get in cols}
            rows.append(
                ClueRow(
                    f"{cond} / {g.spec}",
                    "this run",
                    cells,
                    paper_rows.get(twin) if twin else None,
                    True,
                    twin,
                )
            )
            if twin:
                used.add(twin)
    for label, paper in paper_rows.items():
        if label not in used:
            rows.append(ClueRow(label, "paper", {}, paper))
    extra = CONDITION_COLUMNS.get(name, [])
    return ClueResults(
        name,
        p.title,
        list(p.cite),
        p.describe(),
        [(k, lab) for k, lab, _ in cols] + extra,
        rows,
        "the Clue seed prints point values and ranges, no intervals: no overlap test",
        conditions,
        groups,
        {**pub.rows},
        None if store_path is None else str(store_path),
        missing,
        sum(g.model.truncated if g.model else 0 for g in groups),
        _deviations(runs, {c: m.games for c, m in conditions.items() if c in p.conditions}, p),
    )


def _pool(groups: list[PlayerMetrics], cols: list[tuple[str, str, Getter]]) -> dict[str, CellValue]:
    """Condition rows: numeric cells averaged over players weighted by player-games."""
    out: dict[str, CellValue] = {}
    for key, _, get in cols:
        vals = [(get(g), g.player_games) for g in groups]
        nums = [(v, w) for v, w in vals if isinstance(v, (int, float))]
        if key == "suggested_to_accusation":
            ds = [d for g in groups if (d := g.accusation_delay.from_solution_suggested).n]
            n = sum(d.n for d in ds)
            out[key] = (
                (
                    f"{sum((d.mean or 0) * d.n for d in ds) / n:.1f} ({min(d.min or 0 for d in ds)}-"
                    f"{max(d.max or 0 for d in ds)})"
                )
                if n
                else None
            )
        elif key == "ready":
            ready = [r for g in groups if (r := g.accusation_delay.ready)]
            out[key] = (
                f"{sum(r.became_ready for r in ready)}/{sum(r.players for r in ready)}" if ready else None
            )
        elif key == "wins":
            out[key] = sum(v for v, _ in nums)
        elif key in ("rounds", "ceiling"):
            out[key] = max((v for v, _ in nums), default=None)
        elif nums:
            out[key] = round(sum(v * w for v, w in nums) / sum(w for _, w in nums), 3)
        else:
            out[key] = None
    return out


def clue_table(data: ClueResults) -> Table:
    """The Clue table of `clue_data` as a typed table: this run's rows above the paper's, its data as JSON."""
    header = ["row", "source"] + [label for _, label in data.columns]
    body = []
    for r in data.rows:
        if r.source == "this run":
            body.append(
                [r.row, "this run"]
                + [_fmt(r.cells.get(key), bool(r.paper and key in r.paper)) for key, _ in data.columns]
            )
        if r.paper:
            label = r.paper_row or r.row
            body.append([label, "paper"] + [_paper(r.paper.get(key)) for key, _ in data.columns])
    notes = [
        data.note,
        f"model replies cut off at max_tokens in these games: {data.truncated}",
        "missing: the paper has the value and the run does not; – : the paper prints none",
    ]
    return Table(header, body, notes=notes, data=data.to_json())


def _entry(name: str, cite: tuple[str, ...]) -> None:
    def build(store: Path | None) -> Table:
        return clue_table(clue_data(store, name))

    register_table(name, f"{name} of the Clue paper, the published numbers beside ({'; '.join(cite)})")(build)


for _name, _p in PROTOCOLS.items():
    if _p.kind == "clue":
        _entry(_name, _p.cite)


def render_clue(data: ClueResults, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(data.to_json(), indent=2)
    head = [f"{data.table}: {data.title}", "protocol: " + "; ".join(data.cite)]
    if not any(r.source == "this run" for r in data.rows):
        head.append(
            "the paper's numbers alone: "
            + (data.store_note or f"no Clue study games in {data.store}" if data.store else "no store")
            + f"; run `plylab paper run {data.table} --model M` to add yours"
        )
    head.append(deviations_line(data.deviations))
    text = comment(fmt, head) + "\n\n" + render(clue_table(data), fmt) + "\n"
    return html_page(data.table, text) if fmt == "html" else text


# The seed's figures drawn by `paper report NAME --plot DIR` (000 Figure 3, 5 and 6).
FIGURES = {"clue-accuracy": "fig3", "clue-knowledge": "fig5", "clue-delay": "fig6"}


def plot_clue(data: ClueResults, out_dir: Path) -> list[Path]:
    """The Clue figure of this table, the seed's published points drawn as stars (or bands)."""
    from matplotlib.figure import Figure

    from ..render.plot_style import save

    name = data.table
    if name not in FIGURES:
        raise UserError(f"{name} is a table without a figure; --plot takes {', '.join(FIGURES)}")
    fig = Figure(figsize=(7, 4.5), layout="constrained")
    ax = fig.subplots()
    {"clue-accuracy": _accuracy, "clue-knowledge": _knowledge, "clue-delay": _delay}[name](
        ax, data, data.published
    )
    ax.legend(fontsize="small")
    fig.suptitle(f"{name} (Clue {FIGURES[name].replace('fig', 'Figure ')}): {data.title}", fontsize="small")
    return [save(fig, out_dir, f"{name}-{FIGURES[name]}")]


def _accuracy(ax: Axes, data: ClueResults, pub: JSONObject) -> None:
    """Figure 3: share of players naming 3 / 2 / 1 / 0 envelope cards, per condition."""
    keys = [("identified", "3 cards"), ("two_cards", "2"), ("one_card", "1"), ("no_card", "0")]
    conds = list(get_protocol(data.table).conditions)
    rows = {r.row: r.cells for r in data.rows if r.source == "this run"}
    width = 0.2
    for j, (key, label) in enumerate(keys):
        xs = [i + (j - 1.5) * width for i in range(len(conds))]
        ax.bar(xs, [_number(rows.get(c, {}).get(key)) or 0 for c in conds], width, label=label, color=f"C{j}")
        paper = [(x, v) for x, c in zip(xs, conds) if (v := _number(_at(pub, c, key, "value"))) is not None]
        if paper:
            ax.plot(*zip(*paper), "k*", markersize=10, label="paper" if j == 0 else None)
    ax.set_xticks(range(len(conds)), conds)
    ax.set_ylabel("share of players")
    ax.set_ylim(0, 1.05)


def _knowledge(ax: Axes, data: ClueResults, pub: JSONObject) -> None:
    """Figure 5: cards known per round (ceiling 18); the seed's matrix end point and baseline rounds."""
    for i, g in enumerate(data.groups):
        pts = g.knowledge_curve.rounds
        ax.plot(
            [p.round for p in pts],
            [p.stated for p in pts],
            marker="o",
            ms=3,
            color=f"C{i % 10}",
            label=f"{g.condition} {g.spec}",
        )
    ax.axhline(18, color="grey", ls=":", label="ceiling (18)")
    rounds, known = (
        _number(_at(pub, "matrix", "rounds", "value")),
        _number(_at(pub, "matrix", "final_known", "value")),
    )
    if rounds is not None and known is not None:
        ax.plot([rounds], [known], "k*", markersize=12, label="paper: matrix ends ~round 11, ~14 cards")
    low, high = (
        _number(_at(pub, "baseline", "ceiling_rounds", "low")),
        _number(_at(pub, "baseline", "ceiling_rounds", "high")),
    )
    if low is not None and high is not None:
        ax.plot([low, high], [18, 18], "k-", lw=4, label="paper: baseline at ceiling, rounds 17-18")
    ax.set_xlabel("round")
    ax.set_ylabel("cards whose holder is known")


def _delay(ax: Axes, data: ClueResults, pub: JSONObject) -> None:
    """Figure 6: per game, turns from the first undisproved solution suggestion to the right
    accusation; the seed's ranges as bands."""
    x = 0
    ticks = []
    for i, cond in enumerate(get_protocol(data.table).conditions):
        c = data.conditions.get(cond)
        games = [g for g in (c.per_game if c else []) if g.gap is not None]
        xs = list(range(x, x + len(games)))
        if games:
            ax.bar(xs, [g.gap or 0 for g in games], color=f"C{i}", label=f"{cond} (this run)")
        band = _at(pub, cond, "suggested_to_accusation")
        low, high = _number(_at(band, "low")), _number(_at(band, "high"))
        if low is not None and high is not None:
            lo_x, hi_x = (xs[0] - 0.4, xs[-1] + 0.4) if xs else (x - 0.4, x + 0.4)
            ax.fill_between(
                [lo_x, hi_x],
                low,
                high,
                color=f"C{i}",
                alpha=0.2,
                label=f"{cond} (paper: {_at(band, 'low')}-{_at(band, 'high')} turns)",
            )
        ticks.append((x + max(len(games) - 1, 0) / 2, cond))
        x += max(len(games), 1) + 1
    ax.set_xticks([t for t, _ in ticks], [c for _, c in ticks])
    ax.set_ylabel("turns, confirmation -> right accusation")
