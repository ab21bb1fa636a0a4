"""`plylab paper report TABLE`: a table in the paper's layout, the published numbers beside it.

The reproduced cells come from analysis (matchup_results for tables, learning_data for figures,
clue.metrics.report for Clue); nothing here recomputes a metric. Beside each reproduced model the
paper's row for the same model (by name, or `--compare-to`), with `≠` on a reproduced cell whose
95% interval does not overlap the paper's; the paper's other rows follow. A cell the paper has
and the run lacks reads `missing`; a number is never filled in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from ..analysis.metrics import matchup_results
from ..analysis.results import Interval, MatchupRow, Mean
from ..analysis.stats import Estimate, interval_holds, wilson
from ..analysis.tables import mean_cell, proportion, rate_cell
from ..errors import UserError
from ..harness.store import Store, stores_beside
from ..jsontypes import JSONObject
from ..players import player_class
from ..players.canonical import canonical_spec
from ..render.grid import comment, grid, html_page
from ..render.table import TABLE_DEFS, Table, register_table, render
from ..specs import parse_spec
from ..words import count
from .plan import MODEL_PLAYERS, reference_run_name
from .protocols import PROTOCOLS, Column, Protocol, deviations_line, get_protocol, opponent_spec
from .published import PublishedCell, paper_model, published, published_rows

FORMATS = ("markdown", "csv", "latex", "json", "html", "table")
MISSING = "missing"
TRANSPORT = ("base_url", "timeout", "max_connections")  # where a model is reached, not how it plays
NEQ = "≠"
COUNTS = {"W": "wins", "D": "draws", "L": "losses", "F": "failures"}  # metric -> matchup row count


# -- cells -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimated:
    """A reproduced estimate as a paper cell: low and high are None where the interval cannot hold
    (one value, or a count's t-interval below 0)."""

    value: float
    low: float | None
    high: float | None
    n: int | None

    @property
    def units(self) -> int | None:
        return self.n

    def to_json(self) -> JSONObject:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n}


@dataclass(frozen=True)
class Counted:
    """A reproduced count (W, D, L or F) out of the matchup's games."""

    count: int
    of: int

    def to_json(self) -> JSONObject:
        return {"count": self.count, "of": self.of}


PaperCell = Estimated | Counted | PublishedCell  # what a cell of a paper table holds


def _json(c: PaperCell | None) -> JSONObject | None:
    return None if c is None else c.to_json()


def _measure(row: MatchupRow, metric: str) -> Interval:
    measures: dict[str, Interval] = {
        "optimality": row.optimality,
        "win_rate": row.win_rate,
        "draw_rate": row.draw_rate,
        "moves": row.moves_per_game,
        "recognition": row.recognition,
        "tokens": row.tokens_per_move,
    }
    return measures[metric]


def estimated(src: Interval, metric: str) -> Estimated | None:
    """An estimate as a reproduced cell (None where it has no value); a Student-t interval of moves
    or tokens that cannot hold is not one (the cell shows n)."""
    if src.value is None:
        return None
    cell = Estimated(src.value, src.low, src.high, src.units)
    if metric in ("moves", "tokens") and not _holds(cell):
        cell = replace(cell, low=None, high=None)
    return cell


def _cell(row: MatchupRow, metric: str) -> Estimated | Counted | None:
    """One metric of a matchup row as a cell: an estimate, or a count out of the games for W/D/L/F."""
    if metric in COUNTS:
        return Counted(row.outcome_counts[COUNTS[metric]], row.games)
    return estimated(_measure(row, metric), metric)


def _holds(c: Estimated) -> bool:
    """A Student-t interval holds by the one rule (stats.interval_holds) and, for counts, above 0."""
    return interval_holds(c.low, c.high, c.n) and c.low is not None and c.low >= 0


def _ci(c: PaperCell | None) -> tuple[float, float] | None:
    if c is None:
        return None
    # counts: a Wilson interval over the games (the paper prints raw counts, l.202)
    if isinstance(c, Counted):
        return _wilson(c.count, c.of)
    if isinstance(c, PublishedCell) and c.count is not None:
        return _wilson(c.count, 100)
    if c.low is not None and c.high is not None:
        return float(c.low), float(c.high)
    if isinstance(c, Estimated):  # a reproduced cell without an interval: no test
        return None
    return c.interval()


def _wilson(k: int, n: int) -> tuple[float, float] | None:
    e = wilson(k, n)
    return (e.low, e.high) if e.low is not None and e.high is not None else None


def disjoint(mine: PaperCell | None, paper: PaperCell | None) -> bool | None:
    """True where both 95% intervals exist and do not overlap."""
    a, b = _ci(mine), _ci(paper)
    if a is None or b is None:
        return None
    return a[1] < b[0] or b[1] < a[0]


def _num(x: float, metric: str) -> str:
    if metric == "moves":
        return f"{x:.2f}"
    return proportion(x)


def show(c: PaperCell | None, metric: str, paper_games: int | None = None) -> str:
    """A cell as printed. A count out of other than the paper's `paper_games` is a rate with its own
    n; a mean whose interval cannot hold shows its n instead of an interval."""
    if c is None:
        return MISSING
    if isinstance(c, Counted):
        if paper_games is not None and c.of != paper_games:
            return f"{_num(c.count / c.of, 'rate') if c.of else '–'} (n={c.of})"
        return str(c.count)
    if isinstance(c, PublishedCell) and c.count is not None:
        return str(c.count)
    value = c.value
    assert value is not None  # a reproduced cell has one; a published cell without a count does
    if isinstance(c, Estimated) and not interval_holds(c.low, c.high, c.n):
        return f"{_num(value, metric) if metric != 'tokens' else format(value, '.1f')} (n={c.n})"
    if metric == "tokens":
        if isinstance(c, PublishedCell) and c.pm is not None:
            return f"{value:.1f} ±{c.pm:.1f}"
        return mean_cell(Mean(value, c.low, c.high, None))
    if c.low is None:
        return _num(value, metric)
    if metric == "moves":
        return f"{value:.2f} [{c.low:.2f}, {c.high:.2f}]"
    return rate_cell(Estimated(value, c.low, c.high, None))


# -- which runs and rows -------------------------------------------------------------------------


def _runs(store: Store, p: Protocol, runs: list[str] | None) -> list[str]:
    names = [r.name for r in store.runs()]
    if runs:
        unknown = [r for r in runs if r not in names]
        if unknown:
            raise UserError(f"no run {', '.join(unknown)} in {store.path}")
        return runs
    prefix = f"paper/{p.source}/"
    return [
        n
        for n in names
        if n.startswith(prefix) and "/" not in n[len(prefix) :] and n[len(prefix) :] != "reference"
    ]


def _effort(spec_options: dict[str, str], p: Protocol, player: str = "") -> str:
    # A stored spec drops its defaults (players.canonical): no `effort` key means the player's default.
    if "effort" in spec_options:
        return spec_options["effort"]
    try:
        default = getattr(player_class(player)[2], "effort", None) if player else None
    except UserError:
        default = None
    return default if isinstance(default, str) else p.efforts[0]


def _label(player: str) -> tuple[str, str]:
    """(row label: the spec without effort, model name)."""
    spec = parse_spec(player, kind="player spec")
    opts = {k: v for k, v in spec.options.items() if k != "effort"}
    label = spec.name + (":" + ",".join(f"{k}={v}" for k, v in opts.items()) if opts else "")
    return label, spec.options.get("model", "")


def _matches(row: MatchupRow, c: Column, p: Protocol) -> bool:
    if row.game != c.game or row.formulation != c.formulation:
        return False
    if parse_spec(row.opponent, kind="opponent").name != c.opponent:
        return False
    return _effort(parse_spec(row.player, kind="player").options, p, row.player) == (c.effort or p.efforts[0])


def _deviations(rows: list[MatchupRow], p: Protocol, plans: dict[str, JSONObject]) -> list[str]:
    out: set[str] = set()
    for r in rows:
        paper_opp = opponent_spec(parse_spec(r.opponent, kind="opponent").name, r.game)
        if canonical_spec(r.opponent) != canonical_spec(paper_opp):
            out.add(f"opponent {r.opponent} on {r.game} (paper: {paper_opp})")
        opts = parse_spec(r.player, kind="player").options
        extra = {k: v for k, v in opts.items() if k not in ("model", "effort", *TRANSPORT)}
        if extra:
            out.add(
                "player options "
                + ",".join(f"{k}={v}" for k, v in extra.items())
                + (
                    " — constrained decoding to legal moves, which removes the paper's failure channel"
                    if extra.get("output") == "enum" or extra.get("answer") == "legal"
                    else " (not the paper's)"
                )
            )
    for name, plan in plans.items():
        games = plan.get("games")
        if isinstance(games, int) and games != p.games_per_matchup:
            out.add(f"{count(games, 'game')} per matchup in run {name} (paper: {p.games_per_matchup})")
    return sorted(out)


# -- the table as data -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnCell:
    """One column of a table row: the reproduced cell, the paper's, whether their 95% intervals are
    disjoint, and the matchup's failures (Table 2's †)."""

    reproduced: Estimated | Counted | None = None
    published: PublishedCell | None = None
    disjoint: bool | None = None
    failures: int | None = None


@dataclass(frozen=True)
class PaperRow:
    """A row of a paper table: a reproduced model ("this run", beside the paper's row for the same
    model, `paper_model`), a row of the paper ("paper"; `paired` when printed beside its twin), or
    a reference player ("reference")."""

    model: str
    source: str
    cells: dict[str, ColumnCell]
    paper_model: str | None = None
    paired: bool = False

    def to_json(self) -> JSONObject:
        out: JSONObject = {"model": self.model, "source": self.source}
        if self.source == "this run":
            out["paper_model"] = self.paper_model
            out["cells"] = {
                k: {
                    "reproduced": _json(c.reproduced),
                    "published": _json(c.published),
                    "disjoint": c.disjoint,
                    "failures": c.failures,
                }
                for k, c in self.cells.items()
            }
        elif self.source == "paper":
            out["paired"] = self.paired
            out["cells"] = {k: {"published": _json(c.published)} for k, c in self.cells.items()}
        else:
            out["cells"] = {
                k: {"reproduced": _json(c.reproduced), "published": _json(c.published)}
                for k, c in self.cells.items()
            }
        return out


@dataclass(frozen=True)
class Reference:
    """A reference player's matchup (classic players at the paper's settings), for the rows under
    the table."""

    player: str
    opponent: str
    game: str
    games: int
    W: int
    D: int
    L: int
    F: int
    win_rate: Estimated | Counted | None
    draw_rate: Estimated | Counted | None
    loss_rate: Estimate
    optimality: Estimated | Counted | None

    def to_json(self) -> JSONObject:
        return {
            "player": self.player,
            "opponent": self.opponent,
            "game": self.game,
            "games": self.games,
            "W": self.W,
            "D": self.D,
            "L": self.L,
            "F": self.F,
            "win_rate": _json(self.win_rate),
            "draw_rate": _json(self.draw_rate),
            "loss_rate": self.loss_rate.to_json(),
            "optimality": _json(self.optimality),
        }


@dataclass(frozen=True)
class PaperTableData:
    """A paper table as data: protocol, deviations, model rows beside the paper's, reference rows.

    Each column carries its printed layout (group / sub / row, see protocols.Column) and
    `paper_games` is the paper's games per matchup, so a count from a run of another size is read
    as a rate with its n. `to_json()` is the table's JSON output."""

    table: str
    title: str
    cite: list[str]
    protocol: JSONObject
    runs: list[str]
    deviations: list[str]
    store: str | None
    store_exists: bool
    paper_games: int
    columns: tuple[Column, ...]
    rows: list[PaperRow]
    footnotes: JSONObject
    references: list[Reference]
    reference_rows: list[PaperRow]

    def to_json(self) -> JSONObject:
        return {
            "table": self.table,
            "title": self.title,
            "cite": list(self.cite),
            "protocol": self.protocol,
            "runs": list(self.runs),
            "deviations": list(self.deviations),
            "store": self.store,
            "store_exists": self.store_exists,
            "paper_games": self.paper_games,
            "columns": [
                {
                    "key": c.key,
                    "label": c.label,
                    "metric": c.metric,
                    "group": c.group,
                    "sub": c.sub,
                    "row": c.row,
                }
                for c in self.columns
            ],
            "rows": [r.to_json() for r in self.rows],
            "footnotes": self.footnotes,
            "references": [r.to_json() for r in self.references],
            "reference_rows": [r.to_json() for r in self.reference_rows],
        }


# -- tables ---------------------------------------------------------------------------------------


def _plan(store: Store, name: str) -> JSONObject:
    found: JSONObject = next((json.loads(r.plan) for r in store.runs() if r.name == name), {})
    return found


def table_data(
    store_path: Path | None, name: str, runs: list[str] | None = None, compare_to: str | None = None
) -> PaperTableData:
    """The table as data (PaperTableData). Without a store (None, or a path where none exists) it
    is the paper's table alone."""
    p = get_protocol(name)
    if p.kind != "play":
        raise UserError(
            f"'{name}' is a {'figure' if p.kind == 'learn' else 'Clue table'}; see figure_data / clue_data"
        )
    pub = published(name)
    paper_rows = published_rows(name)
    if compare_to is not None and compare_to not in paper_rows:
        raise UserError(f"--compare-to '{compare_to}' is not a row of {name}; rows: {', '.join(paper_rows)}")
    names: list[str] = []
    rows: list[MatchupRow] = []
    plans: dict[str, JSONObject] = {}
    ref_rows: list[MatchupRow] = []
    if store_path is not None and Path(store_path).exists():
        store = Store(store_path, create=False)
        try:
            names = _runs(store, p, runs)
            for n in names:
                rows += matchup_results(store, n)
                plans[n] = _plan(store, n)
            all_names = {r.name for r in store.runs()}
            if not runs and reference_run_name(p) in all_names:
                ref = reference_run_name(p)
                ref_rows = matchup_results(store, ref)
                plans[ref] = _plan(store, ref)
        finally:
            store.close()
    elif runs:
        raise UserError(f"--run {', '.join(runs)}: no store at '{store_path}'")
    model_rows = [r for r in rows if parse_spec(r.player, kind="player").name in MODEL_PLAYERS]
    by_label: dict[str, list[MatchupRow]] = {}
    for r in model_rows:
        by_label.setdefault(_label(r.player)[0], []).append(r)
    out_rows: list[PaperRow] = []
    used: set[str] = set()
    for label, items in by_label.items():
        model = _label(items[0].player)[1]
        twin = compare_to or paper_model(model)
        cells = {}
        for c in p.columns:
            hit = next((r for r in items if _matches(r, c, p)), None)
            mine = _cell(hit, c.metric) if hit else None
            paper = paper_rows.get(twin, {}).get(c.key) if twin else None
            cells[c.key] = ColumnCell(mine, paper, disjoint(mine, paper), hit.failures if hit else None)
        out_rows.append(PaperRow(label, "this run", cells, paper_model=twin if twin in paper_rows else None))
        if twin in paper_rows:
            used.add(twin)
    for model, published_cells in paper_rows.items():
        out_rows.append(
            PaperRow(
                model,
                "paper",
                {c.key: ColumnCell(published=published_cells.get(c.key)) for c in p.columns},
                paired=model in used,
            )
        )
    footnotes = pub.footnotes
    return PaperTableData(
        table=name,
        title=p.title,
        cite=list(p.cite),
        protocol=p.describe(),
        runs=names,
        deviations=_deviations(model_rows, p, plans),
        store=str(store_path) if store_path is not None else None,
        store_exists=store_path is not None and Path(store_path).exists(),
        paper_games=p.games_per_matchup,
        columns=p.columns,
        rows=out_rows,
        footnotes=footnotes if isinstance(footnotes, dict) else {},
        references=[_reference(r) for r in ref_rows],
        reference_rows=_reference_rows(ref_rows, p),
    )


def _reference_rows(ref_rows: list[MatchupRow], p: Protocol) -> list[PaperRow]:
    """The reference players in the table's own layout (a row per player, a cell per column whose
    game and opponent it played), so their counts sit under the paper's header too."""
    out: dict[str, PaperRow] = {}
    for r in ref_rows:
        role = parse_spec(r.opponent, kind="opponent").name
        for c in p.columns:
            if r.game == c.game and r.formulation == c.formulation and role == c.opponent:
                row = out.setdefault(r.player, PaperRow(r.player, "reference", {}))
                row.cells[c.key] = ColumnCell(reproduced=_cell(r, c.metric))
    return list(out.values())


def _reference(r: MatchupRow) -> Reference:
    return Reference(
        player=r.player,
        opponent=r.opponent,
        game=r.game,
        games=r.games,
        W=r.wins,
        D=r.draws,
        L=r.losses,
        F=r.failures,
        win_rate=_cell(r, "win_rate"),
        draw_rate=_cell(r, "draw_rate"),
        loss_rate=wilson(r.losses, r.games),
        optimality=_cell(r, "optimality"),
    )


Line = tuple[str, str, dict[str, str]]  # (model, source, cell text by column key)


def _table_grid(data: PaperTableData) -> tuple[list[str], list[list[str]], list[str], list[tuple[str, int]]]:
    """Header, body, notes and header groups of the table in the paper's layout."""
    cols = data.columns
    n_paper = data.paper_games
    lines: list[Line] = []
    notes: list[str] = []
    daggers: list[str] = []
    has_f = any(c.metric == "F" for c in cols)
    one_per_matchup = len({c.key.split(".")[0] for c in cols}) == len(cols)

    def paper_text(cell: ColumnCell, metric: str) -> str:
        pc = cell.published
        return "–" if pc is None else show(pc, metric) + ("†" if pc.dagger else "")

    for row in data.rows:
        texts: dict[str, str] = {}
        for c in cols:
            cell = row.cells[c.key]
            if row.source == "paper":
                texts[c.key] = paper_text(cell, c.metric)
                continue
            text = show(cell.reproduced, c.metric, n_paper)
            if cell.failures and not has_f:  # Table 2's †, wherever no F column shows them
                text += "†"
                # one note per matchup: a column's label when each column is one, else its opponent
                where = f"on {c.label}" if one_per_matchup else f"vs {c.key.split('.')[0]}"
                note = (
                    f"{row.model} failed to return a legal action in {count(cell.failures, 'game')} {where}"
                )
                if note not in daggers:
                    daggers.append(note)
            if cell.disjoint:
                text += f" {NEQ}"
            texts[c.key] = text
        lines.append((row.model, "paper" if row.source == "paper" else "this run", texts))
        if row.source == "this run" and row.paper_model:
            twin = {}
            for c in cols:
                twin[c.key] = paper_text(row.cells[c.key], c.metric)
            lines.append((row.paper_model, "paper", twin))
    lines = _dedupe_paper_rows(lines, data)
    for ref in data.reference_rows:
        lines.append(
            (
                ref.model,
                "reference",
                {k: show(v.reproduced, _metric(cols, k), n_paper) for k, v in ref.cells.items()},
            )
        )
    header, body, groups = _shape(cols, lines)
    if any(cell.disjoint for row in data.rows for cell in row.cells.values()):
        notes.append(
            f"{NEQ}: the reproduced 95% interval and the paper's do not overlap"
            + (" (W/D/L/F: Wilson intervals over the games)" if cols and cols[0].metric in "WDLF" else "")
        )
    if any("(n=" in t for _, src, texts in lines if src != "paper" for t in texts.values()):
        notes.append(
            f"(n=k): a count from a run of k games, not the paper's {n_paper}, shown as a rate over its own "
            "k games; a mean with (n=k) and no interval: one value, or an interval that cannot hold"
        )
    dagger = data.footnotes.get("†")
    if dagger:
        notes.append(f"† (paper) {dagger}")
    notes += [f"† (this run) {d}" for d in daggers]
    if not any(r.source == "this run" for r in data.rows):
        notes.append(f"no reproduced rows yet: run `plylab paper run {data.table} --model M`")
    notes.append(
        f"{MISSING}: the paper has this cell and the run has no games for it; – : the paper prints none"
    )
    return header, body, notes, groups


@dataclass(frozen=True)
class TableLayout:
    """A table as printed, as data (for the HTML site and other renderers): `header` (the lower
    header row), `groups` ((label, span) over it; [] for one level), `body` rows of cell text and
    `notes`, in the paper's layout."""

    header: list[str]
    groups: list[tuple[str, int]]
    body: list[list[str]]
    notes: list[str]


def table_layout(data: PaperTableData) -> TableLayout:
    """The printed layout of `table_data`'s table."""
    header, body, notes, groups = _table_grid(data)
    return TableLayout(header, groups, body, notes)


def _metric(cols: tuple[Column, ...], key: str) -> str:
    return next(str(c.metric) for c in cols if c.key == key)


def _shape(
    cols: tuple[Column, ...], lines: list[Line]
) -> tuple[list[str], list[list[str]], list[tuple[str, int]]]:
    """Lines into the printed layout: columns under their groups (Tables 3, 6, 7) or, where columns
    name a row, one line per model and row with the sub-labels as columns (Table 14)."""
    measures = list(dict.fromkeys(c.row for c in cols if c.row))
    if measures:
        subs = list(dict.fromkeys(c.sub for c in cols))
        at = {(c.row, c.sub): c.key for c in cols}
        body = [
            [model, source, m] + [texts.get(at.get((m, sub), ""), "–") for sub in subs]
            for model, source, texts in lines
            for m in measures
        ]
        return ["Model", "source", "measure", *subs], body, []
    header = ["Model", "source"] + [c.sub or c.label for c in cols]
    body = [[model, source] + [texts.get(c.key, "–") for c in cols] for model, source, texts in lines]
    groups: list[tuple[str, int]] = [("", 2)] if any(c.group for c in cols) else []
    if groups:
        for c in cols:
            if c.group and groups[-1][0] == c.group:
                groups[-1] = (c.group, groups[-1][1] + 1)
            else:
                groups.append((c.group, 1))
    return header, body, groups


def _dedupe_paper_rows(lines: list[Line], data: PaperTableData) -> list[Line]:
    """A paper row printed beside its reproduced twin is not printed again below."""
    paired = {r.model for r in data.rows if r.source == "paper" and r.paired}
    seen: set[str] = set()
    out = []
    for line in lines:
        if line[1] == "paper" and line[0] in paired:
            if line[0] in seen:
                continue
            seen.add(line[0])
        out.append(line)
    return out


def _reference_grid(refs: list[Reference]) -> tuple[list[str], list[list[str]]]:
    header = [
        "reference player",
        "opponent",
        "game",
        "games",
        "W",
        "D",
        "L",
        "F",
        "win rate [Wilson]",
        "draw rate",
        "loss rate",
        "optimality [Wilson]",
    ]
    body = [
        [
            r.player,
            r.opponent,
            r.game,
            str(r.games),
            str(r.W),
            str(r.D),
            str(r.L),
            str(r.F),
            show(r.win_rate, "win_rate"),
            show(r.draw_rate, "draw_rate"),
            rate_cell(Mean(r.loss_rate.rate, r.loss_rate.low, r.loss_rate.high, None)),
            show(r.optimality, "optimality") if r.optimality else "–",
        ]
        for r in refs
    ]
    return header, body


def _header_lines(data: PaperTableData) -> list[str]:
    lines = [f"{data.table}: {data.title}", "protocol: " + "; ".join(data.cite)]
    if not data.runs and not data.references:
        lines.append(
            "the paper's numbers alone: "
            + (
                f"no run for {data.table} in {data.store}"
                if data.store_exists
                else f"no store at {data.store}; "
                + stores_beside(data.store, f"plylab paper run {data.table}")
                if data.store
                else "no store"
            )
        )
    if data.runs:
        lines.append("runs: " + ", ".join(data.runs))
    lines.append(deviations_line(data.deviations))
    return lines


def paper_table(data: PaperTableData) -> Table:
    """The paper table of `table_data` as a typed table: the paper's layout, its data as JSON."""
    header, body, notes, groups = _table_grid(data)
    return Table(header, body, groups=groups, notes=notes, data=data.to_json())


@dataclass(frozen=True)
class PaperSource:
    """What a paper table is built from: a store (None: the paper's numbers alone) and the report's options."""

    store: Path | None
    runs: list[str] | None = None
    compare_to: str | None = None


def _entry(p: Protocol) -> None:
    def build(source: PaperSource) -> Table:
        return paper_table(table_data(source.store, p.name, source.runs, source.compare_to))

    register_table(
        p.name, f"{p.name} of the paper in its layout, the published numbers beside ({'; '.join(p.cite)})"
    )(build)


for _p in PROTOCOLS.values():
    if _p.kind == "play":
        _entry(_p)


def _clue_tables() -> None:
    """Clue's tables are registered by their module, loaded when one is first asked for."""
    from . import clue_tables  # noqa: F401


TABLE_DEFS.defer([n for n, p in PROTOCOLS.items() if p.kind == "clue"], _clue_tables)


def render_table(data: PaperTableData, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(data.to_json(), indent=2)
    main = render(paper_table(data), fmt)
    if fmt == "latex":
        main = main.replace(NEQ, r"$\neq$").replace("†", r"$^\dagger$")
    parts = [comment(fmt, _header_lines(data)), main]
    if data.references:
        rh, rb = _reference_grid(data.references)
        parts.append(comment(fmt, ["reference rows: classic players at the paper's settings (no model)"]))
        parts.append(grid(rh, rb, fmt))
    elif data.table in ("table3", "table6", "table7"):
        parts.append(
            comment(
                fmt, [f"reference rows: none yet; `plylab paper run {data.table} --references` adds them"]
            )
        )
    text = "\n\n".join(parts) + "\n"
    return html_page(data.table, text) if fmt == "html" else text


def report(
    store_path: Path | None,
    name: str,
    fmt: str = "markdown",
    *,
    runs: list[str] | None = None,
    compare_to: str | None = None,
    plot_dir: Path | None = None,
) -> tuple[str, list[Path]]:
    """The rendered report and any figure files written."""
    if fmt not in FORMATS:
        raise UserError(f"unknown format '{fmt}'; accepted: {', '.join(FORMATS)}")
    p = get_protocol(name)
    if p.kind != "play" and store_path is not None and not Path(store_path).exists():
        store_path = None  # the published numbers alone (table_data says where it looked)
    if p.kind == "learn":
        from .figures import figure_data, plot_figure, render_figure

        data = figure_data(store_path, name, runs)
        files = plot_figure(data, plot_dir) if plot_dir is not None else []
        return render_figure(data, fmt), files
    if p.kind == "clue":
        from .clue_tables import clue_data, plot_clue, render_clue

        cdata = clue_data(store_path, name)
        return render_clue(cdata, fmt), plot_clue(cdata, plot_dir) if plot_dir is not None else []
    if plot_dir is not None:
        raise UserError(f"--plot is for figures (fig4, fig5, fig6) and Clue's figures; {name} is a table")
    return render_table(table_data(store_path, name, runs, compare_to), fmt), []
