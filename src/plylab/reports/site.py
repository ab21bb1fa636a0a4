"""`plylab report --html DIR`: a static site that opens from disk (no server, nothing fetched).

Layout: index.html (runs, ratings, matchup tables, plots, paper tables, learning and Clue when the
store has them), runs/run-ID.html (a run's tables and its game list), games/ID.html (one replay
page per game, its data inlined as JSON), plots/*.png|svg, static/ (CSS and JS, copied).
Everything is streamed or aggregated in SQL, so memory stays flat for big stores; a run's game
list is paged (runs/run-ID-2.html, ...) and `replays=N` writes replay pages only for the first N
games of each matchup and seat (`plylab report --replays`, default 50), so the site's size follows
what it shows, not what is stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from itertools import islice
from pathlib import Path
from typing import TypeVar

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from ..analysis.backgammon import BackgammonRow, backgammon_games, backgammon_rows
from ..analysis.batch import batched_roles
from ..analysis.chess import ChessRow, chess_rows
from ..analysis.metrics import matchup_results
from ..analysis.ratings import Rating, anchor_note, ratings_by_game
from ..analysis.results import IDENTITY, MatchupKey, MatchupRow, Mean
from ..analysis.stats import estimate_text, interval_holds
from ..analysis.tables import payoff_cell, pivot
from ..errors import UserError
from ..games import boards
from ..harness.rows import MatchupCount, RunRow
from ..harness.store import Store
from ..players.canonical import canonical_spec, printed_run_name
from ..render.plot_style import styled
from ..words import count
from . import charts, chessgames, data, engine, evalline, extras, gamelist, suites, valueline
from .data import GameSummary, RunSummary
from .equilibrium import section as equilibrium_section
from .gamelist import Choices
from .matchups import matchup_page, spellings_of
from .matchups import page_path as matchup_page_path
from .page import Cell, Grid, Plot, Section, plot_ref
from .paper import paper_tables
from .papers import paper_pages
from .truth import TITLES, ground_truth

T = TypeVar("T")

CLUE_KIND = "clue"  # the kind of Clue's runs (plylab.clue.records.KIND; not imported: Clue stays unloaded)

CHUNK = 500  # games whose moves are in memory at once


def _wbr(text: object) -> Markup:
    """Escaped text that may wrap after its commas (long player specs), and nowhere else."""
    return Markup(",<wbr>").join(escape(part) for part in str(text).split(","))


def _wbr_name(text: object) -> Markup:
    """Escaped text that may wrap after its commas, dots and slashes: a run's name, which holds a
    game, a whole player spec and a seed, so a table of runs fits the page instead of scrolling."""
    parts = re.split(r"(?<=[,./])", str(text))
    return Markup("<wbr>").join(escape(part) for part in parts)


def _env() -> Environment:
    env = Environment(
        loader=PackageLoader("plylab.reports", "templates"),
        autoescape=select_autoescape(("html",)),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["wbr"] = _wbr
    env.filters["wbr_name"] = _wbr_name
    env.filters["run_name"] = printed_run_name  # a stored run name as every table prints it
    env.filters["count"] = count  # "1 game", "2 games": one rule for counted nouns (words.count)
    return env


def _num(x: float | None, digits: int = 3) -> Cell:
    return Cell("–" if x is None else f"{x:.{digits}f}", sort=x, cls="num")


def _ci(low: float | None, high: float | None, digits: int = 3) -> Cell:
    text = "–" if low is None or high is None else f"[{low:.{digits}f}, {high:.{digits}f}]"
    return Cell(text, sort=low, cls="ci")


def _int(n: int) -> Cell:
    return Cell(str(n), sort=n, cls="num")


KEYS = IDENTITY  # run, game, formulation, player, opponent


def _keys(rows: list[MatchupRow]) -> tuple[str, ...]:
    """The identifying columns; `run` only when the rows come from more than one run."""
    return KEYS if len({r.run for r in rows}) > 1 else KEYS[1:]


def _key_cells(r: MatchupRow, keys: tuple[str, ...], root: str | None = None) -> list[Cell]:
    """The identifying cells; with `root`, the player's cell opens the matchup's page."""
    return [
        Cell(
            printed_run_name(r.run) if k == "run" else r.column(k),
            cls="key" if k in ("run", "player", "opponent") else None,
            href=root + matchup_page_path(r) if root is not None and k == "player" else None,
        )
        for k in keys
    ]


def _rate_ci(rate: float | None, low: float | None, high: float | None, n: int | None = None) -> Cell:
    """A rate with its 95% interval in one cell, sorted by the rate; with `n`, by the one rule
    (stats.estimate_text: no interval from fewer than 2 units or of zero width, n instead)."""
    if rate is None:
        return Cell("–", sort=None, cls="num")
    if n is not None:
        return Cell(estimate_text(rate, low, high, n, "{:.3f}".format), sort=rate, cls="num")
    ci = "" if low is None or high is None else f" [{low:.3f}, {high:.3f}]"
    return Cell(f"{rate:.3f}{ci}", sort=rate, cls="num")


def _payoff(est: Mean | None) -> Cell:
    if est is None or est.mean is None:
        return Cell("–", sort=None, cls="num")
    return Cell(payoff_cell(est), sort=est.mean, cls="num")


Losses = dict[MatchupKey, ChessRow]  # the engine's figures of each engine-graded matchup
Backgammon = dict[MatchupKey, BackgammonRow]  # gnubg's figures of each backgammon matchup


def _loss(r: MatchupRow, chess: Losses, backgammon: Backgammon | None = None) -> Cell:
    """The matchup's mean loss on the graded scale, where an equilibrium or an engine graded it: against
    an equilibrium per informative decision (game-clustered interval), by a chess engine per game (t),
    by gnubg per decision in millipoints (as `plylab report` prints it)."""
    n: int | None
    bg = (backgammon or {}).get(r.key)
    if bg is not None:
        mp = bg.millipoints_per_decision
        return Cell("–" if mp is None else f"{mp:.1f} mp/decision", sort=mp, cls="num")
    if r.equilibrium is not None:
        e = r.equilibrium.loss
        mean, low, high, n = e.mean, e.low, e.high, e.n
    elif r.key in chess:
        m = chess[r.key].expected_score_loss
        mean, low, high, n = m.mean, m.low, m.high, m.n
    else:
        return Cell("–", sort=None, cls="num")
    if mean is None:
        return Cell("–", sort=None, cls="num")
    return Cell(estimate_text(mean, low, high, n, "{:.3f}".format), sort=mean, cls="num")


def matchup_grid(
    rows: list[MatchupRow], root: str = "", chess: Losses | None = None, backgammon: Backgammon | None = None
) -> Grid:
    """Outcomes, and how well the player moved by the game's ground truth (reports/truth.py):
    optimality where it is exact (the paper's), the mean loss where an equilibrium or an engine
    graded the moves (`chess`: the engine's figures by matchup). The clustered interval, scored
    moves and moves per game fold into a detail row, so the table fits 1280 px."""
    chess = chess or {}
    backgammon = backgammon or {}
    keys = _keys(rows)
    truths = {ground_truth(r.game) for r in rows}
    exact = "exact" in truths or any(r.optimality.scored for r in rows)
    graded = any(r.equilibrium is not None or r.key in chess or r.key in backgammon for r in rows)
    scored = any(r.optimality_score is not None for r in rows)  # oracles with exact scores (Connect Four)
    paid = any(r.payoff is not None for r in rows)  # hidden-information games: mean payoff per game
    header = (
        [*keys, "games", "W", "D", "L", "F"]
        + ["payoff/game [95% t]"] * paid
        + ["optimality [95% Wilson]"] * exact
        + ["by exact score [95% Wilson]"] * scored
        + ["mean loss [95%]"] * graded
    )
    body, details = [], []
    ungraded = Cell("ungraded", sort=None, cls="num")  # a game without a ground truth: nothing judged
    for r in rows:
        o, s = r.optimality, r.optimality_score
        none = ground_truth(r.game) is None
        body.append(
            _key_cells(r, keys, root)
            + [_int(n) for n in (r.games, r.wins, r.draws, r.losses, r.failures)]
            + [_payoff(r.payoff)] * paid
            + [ungraded if none else _rate_ci(o.rate, o.low, o.high, o.scored)] * exact
            + [_rate_ci(None, None, None) if s is None else _rate_ci(s.rate, s.low, s.high, s.scored)]
            * scored
            + [ungraded if none else _loss(r, chess, backgammon)] * graded
        )
        moves = r.moves_per_game.mean
        per_game = f"the player's moves per game: {'–' if moves is None else f'{moves:.1f}'}"
        asked = batched_roles({"player": r.player, "opponent": r.opponent})
        if asked:  # the `llm` key batch=on, read from the stored spec
            per_game += (
                f" · the {' and '.join(asked)}'s replies from a batch (batch=on: the provider's batch API)"
            )
        if r.equilibrium is not None:
            e = r.equilibrium
            details.append(
                f"mean loss in payoff per informative decision ({e.loss.n} of {e.decisions}), 95% interval "
                f"clustered by game · graded by {e.source} · {per_game}"
            )
        elif r.key in chess:
            details.append(
                f"mean expected-score loss per game, 95% Student-t interval · graded by "
                f"{', '.join(chess[r.key].engine)} · {per_game}"
            )
        elif r.key in backgammon:
            b = backgammon[r.key]
            details.append(
                f"gnubg's error per decision in millipoints of equity over {b.decisions} decisions "
                f"({b.unforced} unforced), PR {'–' if b.pr is None else f'{b.pr:.1f}'} · graded by {b.source} · {per_game}"
            )
        else:
            clustered = (
                f"[{o.cluster_low:.3f}, {o.cluster_high:.3f}]"
                if interval_holds(o.cluster_low, o.cluster_high, o.scored)
                else "–"
            )
            details.append(
                f"95% interval clustered by game: {clustered} · scored moves: {o.scored} · {per_game}"
            )
    title = {
        (True, False): "Outcomes and optimality",
        (False, True): "Outcomes and losses",
        (True, True): "Outcomes, optimality and losses",
    }.get((exact, graded), "Outcomes")
    return Grid(
        "matchups",
        title,
        header,
        body,
        empty="No games in this store yet.",
        details=details,
    )


def exact_section(rows: list[MatchupRow], root: str = "") -> Section | None:
    """The index's section for games with an exact ground truth (a minimax table, a solver): the
    paper's optimality per matchup with both its intervals. None when no such game was played."""
    exact = [r for r in rows if ground_truth(r.game) == "exact"]
    if not exact:
        return None
    keys = _keys(exact)
    scored = any(r.optimality_score is not None for r in exact)
    header = (
        [*keys, "optimality [95% Wilson]", "clustered by game [95%]", "scored moves"]
        + ["by exact score [95% Wilson]"] * scored
        + ["moves/game"]
    )
    body = []
    for r in exact:
        o, s = r.optimality, r.optimality_score
        clustered = interval_holds(o.cluster_low, o.cluster_high, o.scored)
        body.append(
            _key_cells(r, keys, root)
            + [
                _rate_ci(o.rate, o.low, o.high, o.scored),
                _ci(o.cluster_low, o.cluster_high) if clustered else Cell("–", cls="ci"),
                _int(o.scored),
            ]
            + [_rate_ci(None, None, None) if s is None else _rate_ci(s.rate, s.low, s.high, s.scored)]
            * scored
            + [_num(r.moves_per_game.mean, 1)]
        )
    return Section(
        "exact",
        TITLES["exact"],
        "Games whose every move has an exact value (a minimax table, a solver): optimality is the share of "
        "the player's moves that keep the best value, over informative positions (where not every legal move "
        "has the same value; 003's measure).",
        tables=[Grid("exact-table", "Optimality against the exact values", header, body)],
    )


def usage_grid(rows: list[MatchupRow]) -> Grid:
    keys = _keys(rows)
    header = [*keys, "recognition [95% Wilson]", "traces", "tokens/move [95% t]", "calls", "cost"]
    body, details = [], []
    for r in rows:
        if not r.uses_model:
            continue
        rec, tok, u = r.recognition, r.tokens_per_move, r.usage
        mean = tok.mean
        body.append(
            _key_cells(r, keys)
            + [
                _rate_ci(rec.rate, rec.low, rec.high, rec.n),
                _int(rec.n),
                Cell(
                    "–" if mean is None else estimate_text(mean, tok.low, tok.high, tok.n, "{:.1f}".format),
                    sort=mean,
                    cls="num",
                ),
                _int(u.calls),
                _num(u.cost, 4),
            ]
        )
        details.append(
            " · ".join(
                f"{k.replace('_', ' ')}: {n}"
                for k, n in (
                    ("input_tokens", u.input_tokens),
                    ("output_tokens", u.output_tokens),
                    ("reasoning_tokens", u.reasoning_tokens),
                    ("cache_hits", u.cache_hits),
                )
            )
        )
    return Grid(
        "usage",
        "Language models: recognition and tokens",
        header,
        body,
        note="Recognition: share of reasoning traces that name the underlying game (the paper's; moves "
        "without a trace are left out, and no traces means no rate). traces: moves with one.",
        empty="No language-model moves in this store.",
        details=details,
    )


def pivot_grids(rows: list[MatchupRow]) -> list[Grid]:
    grids = []
    for t in paper_tables(rows):
        header, body = pivot(t.rows, t.table, t.by)
        grids.append(
            Grid(t.slug, f"{t.caption} — {t.scope}", header, [[Cell(c) for c in row] for row in body])
        )
    return grids


def rating_grids(table: dict[str, list[Rating]]) -> list[Grid]:
    header = ["rank", "player", "rating", "95% interval", "games", "W", "D", "L"]
    unrated = ["unrated: what the games decide"]
    return [
        Grid(
            f"ratings-{scope}",
            scope,
            header + (unrated if any(not r.identified for r in ratings) else []),
            [
                [
                    Cell("–") if r.rank is None else _int(r.rank),
                    Cell(r.player, cls="key"),
                    _num(r.elo, 0),
                    _ci(r.low, r.high, 0),
                    _int(r.games),
                    _int(r.wins),
                    _int(r.draws),
                    _int(r.losses),
                    *([Cell(r.note or "–")] if any(not q.identified for q in ratings) else []),
                ]
                for r in ratings
            ],
            note=anchor_note(ratings) + ".",
        )
        for scope, ratings in table.items()
    ]


def _moves_lost(s: GameSummary) -> Cell:
    """The player's non-optimal moves of its graded ones (a store from before grades: of its scored)."""
    of = s.graded or s.scored
    if not of:
        return Cell("–", sort=-1, cls="num")
    return Cell(f"{s.nonoptimal}/{of}", sort=s.nonoptimal / of, cls="num")


def games_grid(listed: list[GameSummary], note: str = "", chess: bool = False) -> Grid:
    """A run's game list; with `chess`, the engine's figures of each game (ACPL, accuracy, blunders)."""
    header = [
        "replay",
        "#",
        "game",
        "formulation",
        "player",
        "seat",
        "opponent",
        "outcome",
        "plies",  # both seats' (num_moves); the next columns are the player's moves
        "non-optimal moves",
        "mean loss",
        *(["ACPL", "accuracy", "blunders"] if chess else []),
        "output tokens",
    ]
    body = [
        [
            Cell(f"game {s.id}", sort=s.id, href=f"../games/{s.id}.html" if s.replay else None),
            _int(s.idx),
            Cell(s.game),
            Cell(s.formulation),
            Cell(s.player, cls="key"),
            Cell(s.seat_name or str(s.seat), sort=s.seat),
            Cell(s.opponent, cls="key"),
            Cell(s.outcome + (f" ({s.failure_kind})" if s.failure_kind else ""), cls=f"outcome {s.outcome}"),
            _int(s.moves),
            _moves_lost(s),
            _num(s.mean_loss),
            *([_num(s.acpl, 1), _num(s.accuracy, 1), _num(s.blunders, 0)] if chess else []),
            _int(s.tokens),
        ]
        for s in listed
    ]
    return Grid(
        "games",
        "Games (open one to replay it)",
        header,
        body,
        note=note,
        empty="No games stored for this run.",
    )


GAMES_NOTE = (
    "The player's moves: non-optimal = a loss above the ground truth's tolerance on the graded scale "
    "(expected score; payoff against an equilibrium), of the moves it graded; mean loss over those moves."
)
GNUBG_NOTE = (
    " Backgammon, as gnubg counts it (the Engine table): of the player's decisions (a turn; a double's two "
    "halves are one), those gnubg marks doubtful or worse; mean loss: the error per decision in points "
    "(a thousandth of a point is the table's mp)."
)
CHESS_NOTE = " ACPL, accuracy and blunders as lichess counts them (analysis/chess.py)."


def runs_grid(summaries: list[RunSummary]) -> Grid:
    header = ["run", "kind", "status", "games", "matchups", "games played", "seed", "started"]
    body = [
        [
            Cell(s.name, href=f"runs/run-{s.id}.html", cls="name"),
            Cell(s.kind),
            Cell(s.status),
            _int(s.games),
            _int(s.matchups),
            Cell(", ".join(s.titles), cls="wrap"),
            _int(s.seed),
            Cell(s.created),
        ]
        for s in summaries
    ]
    return Grid("runs-table", "", header, body, empty="The store has no two-player runs.")


GAMES_PER_PAGE = 500  # rows of a run's game list per page


@dataclass(frozen=True)
class RunTables:
    """The tables of a run's page, above its game list."""

    matchups: Grid
    pivots: list[Grid]
    truths: list[Grid]  # what the ground truth says of each matchup, beyond the matchups table


def _chunks(items: Iterable[T], n: int) -> Iterator[list[T]]:
    """`items` n at a time (the last chunk shorter), so a run's games are read a page at a time."""
    it = iter(items)
    while chunk := list(islice(it, n)):
        yield chunk


def run_page_path(run_id: int, page: int) -> str:
    return f"runs/run-{run_id}.html" if page == 1 else f"runs/run-{run_id}-{page}.html"


class SiteWriter:
    """Writes one site; holds the template environment and the values every page shows."""

    def __init__(self, store_path: Path, out_dir: Path) -> None:
        self.out = out_dir
        self.env = _env()
        self.common = {"store_name": store_path.name, "generated": datetime.now().strftime("%Y-%m-%d %H:%M")}

    def page(self, template: str, path: str, root: str, **values: object) -> Path:
        target = self.out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(self.env.get_template(template).render(root=root, **self.common, **values), "utf-8")
        return target

    def copy_static(self) -> None:
        static = resources.files("plylab.reports") / "static"
        (self.out / "static").mkdir(parents=True, exist_ok=True)
        for item in static.iterdir():
            if item.name.endswith((".css", ".js")):
                (self.out / "static" / item.name).write_bytes(item.read_bytes())

    def replays(self, store: Store, ids: list[int], run: RunRow) -> None:
        """Replay pages for these games (one chunk: their moves are in memory together)."""
        moves = store.moves_for_games(ids)
        for g in store.games_by_id(ids):
            payload = data.replay_payload(g, moves[g.id], printed_run_name(run.name))
            self.page(
                "replay.html",
                f"games/{g.id}.html",
                "../",
                game=payload,
                wdl=any(m["value"] for s in payload["steps"] for m in s["legal"]),  # exact game values
                value_chart=Markup(
                    evalline.chart(payload["steps"])
                    if payload["engine"]
                    else valueline.chart(
                        payload["steps"],
                        payload["seat_names"],
                        boards.seat_colours(g.game) or valueline.SEAT_COLOURS,
                        payload["truth"],
                    )
                ),
                run_href=run_page_path(run.id, 1),
            )

    def run_pages(
        self,
        store: Store,
        runs: list[RunRow],
        matchups: list[MatchupCount],
        rows: list[MatchupRow],
        replays: int = 0,
        chess: Losses | None = None,
        backgammon: Backgammon | None = None,
    ) -> None:
        """Each run's pages (its game list, GAMES_PER_PAGE rows a page) and replay pages.

        Streamed from the store: at most one page of listed games and CHUNK games' moves are in
        memory. With `replays` > 0 only the first `replays` games (by index) of each matchup and
        seat get a replay page, so the site's size is bounded by what it shows.
        """
        self._store = store
        summaries = {s.id: s for s in data.run_summaries(runs, matchups)}
        for run in runs:
            summary = summaries[run.id]
            pages = max(1, -(-summary.games // GAMES_PER_PAGE))
            run_rows = [r for r in rows if r.run == run.name]
            mine = [c for k, c in (chess or {}).items() if k[0] == run.name]
            gnubg = [b for k, b in (backgammon or {}).items() if k[0] == run.name]
            truths = [
                t for s in (equilibrium_section(run_rows), engine.section(mine, gnubg)) if s for t in s.tables
            ]
            tables = RunTables(
                matchup_grid(run_rows, "../", chess, backgammon), pivot_grids(run_rows), truths
            )
            capped = replays > 0 and any(m.games > replays for m in matchups if m.run_id == run.id)
            note = (
                (
                    f"Replay pages for the first {replays} games (by index) of each matchup and seat "
                    "(`plylab report --html DIR --replays N`; 0 writes one for every game)."
                )
                if capped
                else ""
            )
            filters = gamelist.choices(store, run.id, [m for m in matchups if m.run_id == run.id])
            figures = chessgames.game_figures(store, run.id) if filters.chess else {}
            by_game = (
                backgammon_games(store, run.name) if any(k[0] == run.name for k in backgammon or {}) else {}
            )
            note = (GNUBG_NOTE.strip() + " " + note).strip() if by_game else note
            listed: list[GameSummary] = []
            pending: list[int] = []
            page = 1
            for chunk in _chunks(store.listed_games(run.id), GAMES_PER_PAGE):
                grades = store.player_grades(g.id for g in chunk if g.id not in by_game)
                for g in chunk:
                    replay = replays == 0 or g.nth <= replays
                    decided = data.tally(g.game, grades.get(g.id, []))
                    listed.append(data.game_summary(g, replay, figures.get(g.id), by_game.get(g.id), decided))
                    if replay:
                        pending.append(g.id)
                    if len(pending) >= CHUNK:
                        self.replays(store, pending, run)
                        pending = []
                    if len(listed) == GAMES_PER_PAGE and page < pages:
                        self._run_page(run, summary, tables, listed, note, page, pages, filters)
                        listed, page = [], page + 1
            if pending:
                self.replays(store, pending, run)
            self._run_page(run, summary, tables, listed, note, page, pages, filters)

    def shard(self, run_id: int, page: int, listed: list[GameSummary]) -> None:
        """The page's games as a script the filter loads on demand (and their texts, for search)."""
        folder = self.out / "runs"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / gamelist.shard_name(run_id, "games", page)).write_text(
            gamelist.games_script(page, listed), "utf-8"
        )
        (folder / gamelist.shard_name(run_id, "text", page)).write_text(
            gamelist.text_script(page, self._store, [g.id for g in listed]), "utf-8"
        )

    def _run_page(
        self,
        run: RunRow,
        summary: RunSummary,
        tables: RunTables,
        listed: list[GameSummary],
        note: str,
        page: int,
        pages: int,
        filters: Choices,
    ) -> None:
        pager = [(str(p), f"../{run_page_path(run.id, p)}", p == page) for p in range(1, pages + 1)]
        self.shard(run.id, page, listed)
        self.page(
            "run.html",
            run_page_path(run.id, page),
            "../",
            run=summary,
            games=games_grid(
                listed,
                " ".join(n for n in (GAMES_NOTE + CHESS_NOTE * filters.chess, note) if n),
                filters.chess,
            ),
            pager=pager if pages > 1 else [],
            filters=filters,
            page=page,
            pages=pages,
            matchups=tables.matchups,
            truths=tables.truths,
            pivots=tables.pivots,
        )

    def matchup_pages(
        self,
        store: Store,
        runs: list[RunRow],
        matchups: list[MatchupCount],
        rows: list[MatchupRow],
        chess: Losses | None = None,
        backgammon: Backgammon | None = None,
    ) -> None:
        """A page per matchup row (reports/matchups.py), each aggregated in SQL."""
        ids = {r.name: r.id for r in runs}
        spellings = spellings_of(matchups, canonical_spec)
        for r in rows:
            run_id = ids[r.run]
            key = (run_id, r.game, r.formulation, r.player, r.opponent)
            self.page(
                "matchup.html",
                matchup_page_path(r),
                "../",
                row=r,
                summary=matchup_grid([r], "../", chess, backgammon),
                page=matchup_page(store, run_id, r, spellings.get(key, ([r.player], [r.opponent]))),
                run_href=run_page_path(run_id, 1),
            )

    def figures(
        self, rows: list[MatchupRow], ratings: dict[str, list[Rating]]
    ) -> tuple[list[Plot], Plot | None]:
        """The index's figures: (optimality and outcomes, ratings); absent ones are skipped."""
        plot_dir = self.out / "plots"
        made = [
            (charts.optimality(rows, plot_dir), OPTIMALITY_CAPTION),
            (charts.outcomes(rows, plot_dir), "Outcomes by opponent, from the player's side."),
        ]
        ratings_png = charts.ratings(ratings, plot_dir)
        return (
            [plot_ref(p, self.out, c) for p, c in made if p is not None],
            plot_ref(ratings_png, self.out, RATINGS_CAPTION) if ratings_png else None,
        )


OPTIMALITY_CAPTION = (
    "Optimality by player, opponent and formulation: thick bars are 95% Wilson intervals over "
    "moves, thin bars 95% intervals clustered by game."
)
RATINGS_CAPTION = (
    "Ratings with 95% bootstrap intervals, rated players only; dashed: 1000 (random where rated)."
)


def write_site(
    store_path: Path, run: str | None, out_dir: Path, *, replays: int = 0, pooled_ratings: bool = False
) -> Path:
    """Write the site for every run in the store (or just `run`); return the index page.

    `replays` > 0 caps the replay pages at the first N games of each matchup and seat (0: all);
    ratings are per game, with one pooled over every game first when `pooled_ratings`.
    """
    store_path, out_dir = Path(store_path), Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot write the site to '{out_dir}': {exc.strerror or exc}") from None
    writer = SiteWriter(store_path, out_dir)
    store = Store(store_path, create=False)
    try:
        # Clue's runs have a section of their own, whose replays show the matrix beside the oracle
        runs = [r for r in store.runs(run) if r.kind != CLUE_KIND]
        run_ids = [r.id for r in runs]
        matchups = store.frame(run_ids).matchup_counts()
        results = data.rating_results(store, run_ids)
        names = {r.name for r in runs}
        rows = [r for r in matchup_results(store, run) if r.run in names]
        graded = [c for c in chess_rows(store, run) if c.run in names]  # engine-graded matchups (chess)
        chess = {(c.run, c.game, c.formulation, c.player, c.opponent): c for c in graded}
        gnubg = [b for b in backgammon_rows(store, run) if b.run in names]  # gnubg-graded matchups
        backgammon = {(b.run, b.game, b.formulation, b.player, b.opponent): b for b in gnubg}
        writer.copy_static()
        writer.run_pages(store, runs, matchups, rows, replays, chess, backgammon)
        writer.matchup_pages(store, runs, matchups, rows, chess, backgammon)
    finally:
        store.close()
    ratings = ratings_by_game(results, pooled=pooled_ratings)
    with styled():  # every figure of the site in one style (render/plot_style.py)
        papers = paper_pages(store_path, out_dir) if run is None else []  # the papers read their own runs
        figures, ratings_plot = writer.figures(rows, ratings)
        sections = [
            s
            for s in (
                extras.learning(store_path, run, out_dir),
                extras.clue(writer, store_path, run),
                suites.section(writer, store_path, run),  # suite runs (reports/suites.py)
            )
            if s
        ]
        # a section per ground truth the store's games have (exact, equilibrium, engine), after the matchups
        truths = [
            s for s in (exact_section(rows), equilibrium_section(rows), engine.section(graded, gnubg)) if s
        ]
    for paper in papers:
        writer.page("paper.html", paper.path, "../", paper=paper)
    main_toc = [
        ("ratings", "Ratings"),
        ("results", "Matchups"),
        *((s.id, s.title) for s in truths),
        ("plots", "Plots"),
    ]
    games = sum(m.games for m in matchups)
    pivots = pivot_grids(rows)
    return writer.page(
        "index.html",
        "index.html",
        "",
        only_run=run and printed_run_name(run),
        runs=runs_grid(data.run_summaries(runs, matchups)),
        sections=[
            ("runs", "Runs"),
            *(main_toc if games else []),
            *([("paper", "Papers")] if papers or (games and pivots) else []),
            *((s.id, s.title) for s in sections),
        ],
        totals={
            "games": games,
            "runs": len(runs),
            "moves": sum(m.moves for m in matchups),
            "players": len({canonical_spec(p) for m in matchups for p in (m.player, m.opponent)}),
        },
        ratings=rating_grids(ratings),
        ratings_plot=ratings_plot,
        plots=figures,
        matchups=matchup_grid(rows, "", chess, backgammon),
        usage=usage_grid(rows),
        pivots=pivots,
        papers=papers,
        extras=sections,
        truths=truths,
    )
