"""The papers in the site: every `plylab paper` table and figure that has runs in the store, as a
page styled like the rest, with the published numbers beside the reproduced ones.

The pages are rendered by `plylab.paper.report` itself (its HTML format), so the site shows the
same cells, deviations and notes as `plylab paper report`; this module only finds which protocols
have runs, marks the ≠ cells for the stylesheet, explains the seed citations, and embeds the
figures (the learning figures draw the published points over the reproduced curves).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup

from ..errors import UserError
from ..harness.store import Store

SEEDS = {
    "003": "the PlyBench / REAPER paper (LLM agents with experience memory in tic-tac-toe, Nim and Connect Four)",
    "000": "the Clue paper (LLM agents keeping deductions consistent in six-player Clue)",
}


@dataclass
class PaperPage:
    name: str
    title: str
    kind: str
    path: str
    body: Markup
    cites: list[str]
    figures: list[str] = field(default_factory=list)  # PNG paths relative to the site


def explain(cite: str) -> str:
    """'003 l.49 (...)' in words: which paper, which line of its text."""
    m = re.match(r"(\d{3}) l\.(\d+(?:-\d+)?)\s*(.*)", cite)
    if not m:
        return cite
    seed, lines, rest = m.groups()
    paper = SEEDS.get(seed, f"seed {seed}")
    where = f"line{'s' if '-' in lines else ''} {lines}"
    return f"{paper}, {where} of its text{(' ' + rest) if rest else ''}"


def _has_runs(store: Store, name: str, kind: str, source: str) -> bool:
    names = [r.name for r in store.runs()]
    if kind in ("play", "learn"):
        return any(n.startswith(f"paper/{source}/") or n.startswith(f"paper/{name}/") for n in names)
    return False


def styled_body(html: str) -> Markup:
    """The report's page body, with ≠ cells and paper rows marked for the site's stylesheet."""
    body = re.search(r"<body>(.*)</body>", html, re.S)
    text = body.group(1) if body else html
    text = re.sub(r"<td>([^<]*≠[^<]*)</td>", r'<td class="neq">\1</td>', text)
    text = re.sub(r"<tr>(<td>[^<]*</td><td>paper</td>)", r'<tr class="paper-row">\1', text)
    text = text.replace("<table>", '<div class="scroll"><table class="paper">').replace(
        "</table>", "</table></div>"
    )
    text = re.sub(r"<h2>", '<h2 class="paper-head">', text)
    # the report's text marks a command as `plylab …` (fine in a terminal); a page sets it as code
    text = re.sub(r"`([^`<>]+)`", r"<code>\1</code>", text)
    return Markup(text)


def paper_pages(store_path: Path, out_dir: Path) -> list[PaperPage]:
    """One page per paper table or figure with runs in the store (Clue tables: with Clue games)."""
    from ..paper import PROTOCOLS, report

    store = Store(store_path, create=False)
    try:
        wanted = [p for p in PROTOCOLS.values() if _has_runs(store, p.name, p.kind, p.source)]
    finally:
        store.close()
    pages = []
    for p in PROTOCOLS.values():
        if p.kind == "clue":
            if not _clue_has_games(store_path, p.name):
                continue
        elif p not in wanted:
            continue
        plot_dir = out_dir / "plots" / "paper" / p.name
        try:
            html, files = report(store_path, p.name, "html", plot_dir=plot_dir if p.kind == "learn" else None)
        except UserError:
            continue
        pngs = [f.relative_to(out_dir).as_posix() for f in files if f.suffix == ".png"]
        pages.append(
            PaperPage(
                p.name,
                p.title,
                p.kind,
                f"papers/{p.name}.html",
                styled_body(html),
                [explain(c) for c in p.cite],
                pngs,
            )
        )
    return pages


def _clue_has_games(store_path: Path, name: str) -> bool:
    from ..paper.clue_tables import clue_data

    try:
        data = clue_data(store_path, name)
    except Exception:  # a store without Clue tables (or a damaged one) has no Clue paper page
        return False
    return any(r.source == "this run" for r in data.rows)
