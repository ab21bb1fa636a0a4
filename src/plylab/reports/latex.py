"""`plylab report --latex DIR`: the paper's tables as .tex files, plus tables.tex that inputs them.

Each file is a complete `table` float (booktabs rules, caption, label), so a paper can
`\\input` one table or all of them. The cells come from the same pivots as the terminal report.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..analysis.chess import chess_rows, chess_table
from ..analysis.metrics import matchup_results
from ..analysis.ratings import Rating, anchor_note, ratings_by_game
from ..analysis.tables import latex_escape, render
from ..harness.store import Store
from ..render.table import render as render_table
from .data import rating_results
from .paper import paper_tables


def _float(tabular: str, caption: str, label: str) -> str:
    return "\n".join(
        [
            r"\begin{table}[t]",
            r"\centering",
            r"\small",
            tabular,
            rf"\caption{{{latex_escape(caption)}}}",
            rf"\label{{tab:{label}}}",
            r"\end{table}",
            "",
        ]
    )


def _ratings_tabulars(store: Store, run: str | None) -> dict[str, tuple[str, str]]:
    """One ratings tabular per game and where its scale is anchored (see ratings.ratings_by_game)."""
    runs = [r.id for r in store.runs(run)]
    return {
        game: (_ratings_tabular(r), anchor_note(r))
        for game, r in ratings_by_game(rating_results(store, runs)).items()
    }


def _elo(x: float | None) -> str:
    return "--" if x is None else f"{x:.0f}"


def _ratings_tabular(ratings: list[Rating]) -> str:
    lines = [
        r"\begin{tabular}{lrrrrr}",
        r"\toprule",
        r"player & rating & 95\% interval & W & D & L \\",
        r"\midrule",
    ]
    lines += [
        rf"{latex_escape(r.player)} & {_elo(r.elo)} & "
        + ("--" if r.low is None else rf"[{_elo(r.low)}, {_elo(r.high)}]")
        + rf" & {r.wins} & {r.draws} & {r.losses} \\"
        for r in ratings
    ]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)


def write_latex(store_path: Path, run: str | None, out_dir: Path) -> list[Path]:
    """Write one .tex per paper table and game (and ratings), and tables.tex, which inputs them all;
    return every file written, tables.tex first."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    store = Store(store_path, create=False)
    try:
        rows = matchup_results(store, run)
        ratings = _ratings_tabulars(store, run)
        chess = chess_rows(store, run)
    finally:
        store.close()
    written = []
    for t in paper_tables(rows):
        path = out_dir / f"{t.slug}.tex"
        path.write_text(
            _float(render(t.rows, "latex", t.table, t.by), f"{t.caption} ({t.scope}).", t.slug), "utf-8"
        )
        written.append(path)
    if any(r.equilibrium is not None for r in rows):  # games of hidden information
        path = out_dir / "equilibrium.tex"
        caption = "Losses against the equilibrium per matchup, with 95% intervals."
        path.write_text(_float(render(rows, "latex", "equilibrium"), caption, "equilibrium"), "utf-8")
        written.append(path)
    if chess:  # engine-graded games: lichess's figures
        path = out_dir / "chess.tex"
        caption = "Chess graded by the engine as lichess counts it (ACPL, accuracy, judgements), with 95% intervals."
        path.write_text(_float(render_table(chess_table(chess), "latex"), caption, "chess"), "utf-8")
        written.append(path)
    for game, (tabular, anchor) in ratings.items():
        slug = "ratings-" + re.sub(r"[^A-Za-z0-9_-]+", "-", game).strip("-")
        path = out_dir / f"{slug}.tex"
        caption = (
            f"Bradley-Terry ratings for {game} on the Elo scale ({latex_escape(anchor)}; draws count half), "
            "95% bootstrap intervals."
        )
        path.write_text(_float(tabular, caption, slug), "utf-8")
        written.append(path)
    index = out_dir / "tables.tex"
    head = "% plylab tables; needs \\usepackage{booktabs}. Generated from " + latex_escape(
        Path(store_path).name
    )
    index.write_text("\n".join([head, *(rf"\input{{{p.stem}}}" for p in written), ""]), "utf-8")
    return [index, *written]
