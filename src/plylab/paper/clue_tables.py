"""The Clue study's four results (000 §4.1-4.4) from `clue.metrics.report`, the seed's values beside.

Rows are conditions (pooled over their LLM players) and condition / player; the seed prints
point values and ranges only, so there is no interval test here: a paper value sits beside the
reproduced one, and `missing` marks a value the paper has and the store lacks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..render.grid import comment, html_page
from ..render.table import Table, register_table, render
from .protocols import PROTOCOLS, get_protocol
from .published import published

Getter = Callable[[dict[str, Any]], Any]

COLUMNS: dict[str, list[tuple[str, str, Getter]]] = {
    "clue-accuracy": [
        ("identified", "identified (3 cards)", lambda g: g["identified"]["rate"]),
        ("two_cards", "2 cards", lambda g: g["identified"]["cards_right"]["2"]),
        ("one_card", "1 card", lambda g: g["identified"]["cards_right"]["1"]),
        ("no_card", "0 cards", lambda g: g["identified"]["cards_right"]["0"]),
        ("accusation_accuracy", "accusation accuracy", lambda g: g["accusation_accuracy"]),
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
        ("correct_per_player_game", "correct / player-game", lambda g: g["deductions"]["correct_per_game"]),
        (
            "incorrect_per_player_game",
            "incorrect / player-game",
            lambda g: g["deductions"]["incorrect_per_game"],
        ),
        (
            "unsupported_per_player_game",
            "unsupported / player-game",
            lambda g: g["deductions"]["unsupported_per_game"],
        ),
    ],
    "clue-knowledge": [
        ("rounds", "rounds played (max)", lambda g: len(g["knowledge_curve"]["rounds"]) or None),
        (
            "final_known",
            "cards known, last round",
            lambda g: (g["knowledge_curve"]["rounds"] or [{}])[-1].get("stated"),
        ),
        ("ceiling", "ceiling", lambda g: g["knowledge_curve"]["ceiling"]),
    ],
    "clue-delay": [
        (
            "ready",
            "accusation-ready players",
            lambda g: (
                None
                if not g["accusation_delay"]["ready"]
                else f"{g['accusation_delay']['ready']['became_ready']}/{g['accusation_delay']['ready']['players']}"
            ),
        ),
        (
            "ready_gap",
            "ready -> accusation (turns)",
            lambda g: (
                None if not g["accusation_delay"]["ready"] else g["accusation_delay"]["ready"]["gap"]["mean"]
            ),
        ),
        (
            "suggested_to_accusation",
            "solution suggested -> accusation (mean, range)",
            lambda g: _range(g["accusation_delay"]["from_solution_suggested"]),
        ),
        ("wins", "wins", lambda g: g["wins"]),
    ],
}
# Columns of a condition only (from its games, not its players).
CONDITION_COLUMNS: dict[str, list[tuple[str, str]]] = {
    "clue-delay": [
        ("confirmed_turns", "solution confirmed on turns (range)"),
        ("first_suggester_won", "first suggester won"),
    ]
}


def _model_game(g: dict[str, Any], kind: str) -> Any:
    """A row's deductions of `kind` per game with its seats summed (a report from before the key: none)."""
    return (g["deductions"].get("per_model_game") or {}).get(f"{kind}_per_game")


def _range(d: dict[str, Any]) -> str | None:
    if not d["n"]:
        return None
    return f"{d['mean']:.1f} ({d['min']}-{d['max']})"


def _fmt(v: Any, paper_has: bool = False) -> str:
    if v is None:
        return "missing" if paper_has else "–"
    if isinstance(v, float):
        return f"{v:.3f}".rstrip("0").rstrip(".") or "0"
    return str(v)


def _paper(c: dict[str, Any] | None) -> str:
    if not c:
        return "–"
    if "of" in c:
        return f"{c['value']}/{c['of']}"
    if "low" in c and "value" not in c:
        return f"{c['low']}-{c['high']}" + (f" ({c['text']})" if c.get("text") else "")
    if "value" in c:
        return _fmt(c["value"])
    return str(c.get("text", "–"))


def _model_of(spec: str) -> str:
    m = re.search(r"model=([^,]+)", spec)
    return m.group(1) if m else spec


def _same_model(paper_label: str, spec: str) -> bool:
    key = paper_label.lower().replace(" ", "-")
    return key in _model_of(spec).lower()


def clue_data(store_path: Path | None, name: str) -> dict[str, Any]:
    """The Clue table as data, the seed's values beside (the seed's alone without a store)."""
    from ..clue.metrics import report as clue_report
    from ..clue.records import ClueRecords

    p = get_protocol(name)
    pub = published(name)
    data: dict[str, Any] = {"groups": [], "conditions": {}}
    missing = None
    if store_path is not None:
        try:
            store = ClueRecords(store_path)
        except UserError as exc:  # no Clue tables there: the seed's numbers alone, saying why
            missing = str(exc)
        else:
            try:
                data = clue_report(store)
            finally:
                store.close()
    groups = [g for g in data["groups"] if g["condition"] in p.conditions]
    cols = COLUMNS[name]
    rows: list[dict[str, Any]] = []
    paper_rows: dict[str, dict[str, Any]] = pub.get("rows", {})
    used: set[str] = set()
    for cond in p.conditions:
        mine = [g for g in groups if g["condition"] == cond]
        if not mine:
            continue
        pooled = _pool(mine, cols)
        if name == "clue-delay":
            c = data["conditions"].get(cond, {})
            pooled["first_suggester_won"] = f"{c.get('first_suggester_won', 0)}/{c.get('games', 0)}"
            turns = c.get("confirmed_turns") or []
            pooled["confirmed_turns"] = f"{min(turns)}-{max(turns)}" if turns else None
        rows.append({"row": cond, "source": "this run", "cells": pooled, "paper": paper_rows.get(cond)})
        used.add(cond)
        for g in mine:
            twin = next(
                (
                    lab
                    for lab in paper_rows
                    if lab.startswith(cond + " / ") and _same_model(lab.split(" / ", 1)[1], g["spec"])
                ),
                None,
            )
            rows.append(
                {
                    "row": f"{cond} / {g['spec']}",
                    "source": "this run",
                    "cells": {k: get(g) for k, _, get in cols},
                    "paper": paper_rows.get(twin) if twin else None,
                    "paper_row": twin,
                }
            )
            if twin:
                used.add(twin)
    for label, cells in paper_rows.items():
        if label not in used:
            rows.append({"row": label, "source": "paper", "cells": {}, "paper": cells})
    extra = CONDITION_COLUMNS.get(name, [])
    keys = [k for k, _, _ in cols] + [k for k, _ in extra]
    labels = [lab for _, lab, _ in cols] + [lab for _, lab in extra]
    return {
        "table": name,
        "title": p.title,
        "cite": list(p.cite),
        "protocol": p.describe(),
        "columns": [{"key": k, "label": lab} for k, lab in zip(keys, labels)],
        "rows": rows,
        "note": "the Clue seed prints point values and ranges, no intervals: no overlap test",
        "conditions": data["conditions"],
        "groups": groups,
        "published": pub.get("rows", {}),
        "store": None if store_path is None else str(store_path),
        "store_note": missing,
        # model replies cut off at max_tokens (recorded passes): none in a run at the paper's cap
        "truncated": sum((g.get("model") or {}).get("truncated", 0) for g in groups),
    }


def _pool(groups: list[dict[str, Any]], cols: list[tuple[str, str, Getter]]) -> dict[str, Any]:
    """Condition rows: numeric cells averaged over players weighted by player-games."""
    out: dict[str, Any] = {}
    for key, _, get in cols:
        vals = [(get(g), g["player_games"]) for g in groups]
        nums = [(v, w) for v, w in vals if isinstance(v, (int, float))]
        if key == "suggested_to_accusation":
            ds = [g["accusation_delay"]["from_solution_suggested"] for g in groups]
            ds = [d for d in ds if d["n"]]
            n = sum(d["n"] for d in ds)
            out[key] = (
                (
                    f"{sum(d['mean'] * d['n'] for d in ds) / n:.1f} ({min(d['min'] for d in ds)}-"
                    f"{max(d['max'] for d in ds)})"
                )
                if n
                else None
            )
        elif key == "ready":
            ready = [g["accusation_delay"]["ready"] for g in groups if g["accusation_delay"]["ready"]]
            out[key] = (
                f"{sum(r['became_ready'] for r in ready)}/{sum(r['players'] for r in ready)}"
                if ready
                else None
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


def clue_table(data: dict[str, Any]) -> Table:
    """The Clue table of `clue_data` as a typed table: this run's rows above the paper's, its data as JSON."""
    header = ["row", "source"] + [c["label"] for c in data["columns"]]
    body = []
    for r in data["rows"]:
        if r["source"] == "this run":
            body.append(
                [r["row"], "this run"]
                + [
                    _fmt(r["cells"].get(c["key"]), bool(r["paper"] and c["key"] in r["paper"]))
                    for c in data["columns"]
                ]
            )
        if r["paper"]:
            label = r.get("paper_row") or r["row"]
            body.append([label, "paper"] + [_paper(r["paper"].get(c["key"])) for c in data["columns"]])
    notes = [
        data["note"],
        f"model replies cut off at max_tokens in these games: {data['truncated']}",
        "missing: the paper has the value and the run does not; – : the paper prints none",
    ]
    return Table(header, body, notes=notes, data=data)


def _entry(name: str, cite: tuple[str, ...]) -> None:
    def build(store: Path | None) -> Table:
        return clue_table(clue_data(store, name))

    register_table(name, f"{name} of the Clue paper, the published numbers beside ({'; '.join(cite)})")(build)


for _name, _p in PROTOCOLS.items():
    if _p.kind == "clue":
        _entry(_name, _p.cite)


def render_clue(data: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(data, indent=2)
    head = [f"{data['table']}: {data['title']}", "protocol: " + "; ".join(data["cite"])]
    if not any(r["source"] == "this run" for r in data["rows"]):
        head.append(
            "the paper's numbers alone: "
            + (
                data.get("store_note") or f"no Clue study games in {data['store']}"
                if data["store"]
                else "no store"
            )
            + f"; run `plylab paper run {data['table']} --model M` to add yours"
        )
    text = comment(fmt, head) + "\n\n" + render(clue_table(data), fmt) + "\n"
    return html_page(data["table"], text) if fmt == "html" else text


# The seed's figures drawn by `paper report NAME --plot DIR` (000 Figure 3, 5 and 6).
FIGURES = {"clue-accuracy": "fig3", "clue-knowledge": "fig5", "clue-delay": "fig6"}


def plot_clue(data: dict[str, Any], out_dir: Path) -> list[Path]:
    """The Clue figure of this table, the seed's published points drawn as stars (or bands)."""
    from matplotlib.figure import Figure

    from ..render.plots import save

    name = data["table"]
    if name not in FIGURES:
        raise UserError(f"{name} is a table without a figure; --plot takes {', '.join(FIGURES)}")
    fig = Figure(figsize=(7, 4.5), layout="constrained")
    ax = fig.subplots()
    pub = data["published"]
    {"clue-accuracy": _accuracy, "clue-knowledge": _knowledge, "clue-delay": _delay}[name](ax, data, pub)
    ax.legend(fontsize="small")
    fig.suptitle(
        f"{name} (Clue {FIGURES[name].replace('fig', 'Figure ')}): {data['title']}", fontsize="small"
    )
    return [save(fig, out_dir, f"{name}-{FIGURES[name]}")]


def _accuracy(ax: Any, data: dict[str, Any], pub: dict[str, Any]) -> None:
    """Figure 3: share of players naming 3 / 2 / 1 / 0 envelope cards, per condition."""
    keys = [("identified", "3 cards"), ("two_cards", "2"), ("one_card", "1"), ("no_card", "0")]
    conds = list(data["protocol"]["conditions"])
    rows = {r["row"]: r["cells"] for r in data["rows"] if r["source"] == "this run"}
    width = 0.2
    for j, (key, label) in enumerate(keys):
        xs = [i + (j - 1.5) * width for i in range(len(conds))]
        ax.bar(xs, [rows.get(c, {}).get(key) or 0 for c in conds], width, label=label, color=f"C{j}")
        paper = [(x, pub.get(c, {}).get(key, {}).get("value")) for x, c in zip(xs, conds)]
        paper = [(x, v) for x, v in paper if v is not None]
        if paper:
            ax.plot(*zip(*paper), "k*", markersize=10, label="paper" if j == 0 else None)
    ax.set_xticks(range(len(conds)), conds)
    ax.set_ylabel("share of players")
    ax.set_ylim(0, 1.05)


def _knowledge(ax: Any, data: dict[str, Any], pub: dict[str, Any]) -> None:
    """Figure 5: cards known per round (ceiling 18); the seed's matrix end point and baseline rounds."""
    for i, g in enumerate(data["groups"]):
        pts = g["knowledge_curve"]["rounds"]
        ax.plot(
            [p["round"] for p in pts],
            [p["stated"] for p in pts],
            marker="o",
            ms=3,
            color=f"C{i % 10}",
            label=f"{g['condition']} {g['spec']}",
        )
    ax.axhline(18, color="grey", ls=":", label="ceiling (18)")
    m = pub.get("matrix", {})
    if "rounds" in m and "final_known" in m:
        ax.plot(
            [m["rounds"]["value"]],
            [m["final_known"]["value"]],
            "k*",
            markersize=12,
            label="paper: matrix ends ~round 11, ~14 cards",
        )
    b = pub.get("baseline", {}).get("ceiling_rounds")
    if b:
        ax.plot([b["low"], b["high"]], [18, 18], "k-", lw=4, label="paper: baseline at ceiling, rounds 17-18")
    ax.set_xlabel("round")
    ax.set_ylabel("cards whose holder is known")


def _delay(ax: Any, data: dict[str, Any], pub: dict[str, Any]) -> None:
    """Figure 6: per game, turns from the first undisproved solution suggestion to the right
    accusation; the seed's ranges as bands."""
    x = 0
    ticks = []
    for i, cond in enumerate(data["protocol"]["conditions"]):
        games = [g for g in data["conditions"].get(cond, {}).get("per_game", []) if g["gap"] is not None]
        xs = list(range(x, x + len(games)))
        if games:
            ax.bar(xs, [g["gap"] for g in games], color=f"C{i}", label=f"{cond} (this run)")
        band = pub.get(cond, {}).get("suggested_to_accusation")
        if band:
            lo_x, hi_x = (xs[0] - 0.4, xs[-1] + 0.4) if xs else (x - 0.4, x + 0.4)
            ax.fill_between(
                [lo_x, hi_x],
                band["low"],
                band["high"],
                color=f"C{i}",
                alpha=0.2,
                label=f"{cond} (paper: {band['low']}-{band['high']} turns)",
            )
        ticks.append((x + max(len(games) - 1, 0) / 2, cond))
        x += max(len(games), 1) + 1
    ax.set_xticks([t for t, _ in ticks], [c for _, c in ticks])
    ax.set_ylabel("turns, confirmation -> right accusation")
