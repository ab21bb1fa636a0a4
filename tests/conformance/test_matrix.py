"""Every game with a ground truth, on every surface (tests/conformance/matrix.py generates the cases
from the registries): one short seeded game per formulation (random against the truth's own player)
and one by a scripted model, into one store per game; then the terminal report, its JSON, the site
and the inspect export. The one graded decision (oracles.graded.Decision) read from the store is the
reference: every surface must count the same graded decisions, errors and loss, and every replay must
open in headless Chromium with no page error and no empty panel. A disguise's listing must carry no
cell order, and its words not the game's name."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from plylab.cli import main
from plylab.errors import UserError
from plylab.games import get_game
from plylab.oracles.graded import Grade
from plylab.reports.truth import judged
from tests.conformance.matrix import CASES, Case, params
from tests.support.browser import browser_marks, checked_page, chromium, open_file
from tests.support.fake_openai_server import FakeOpenAIServer

SEED = 7
TOL = 1e-9


@dataclass
class Counts:
    """The player's graded decisions in one game, as a surface counts them."""

    graded: int = 0  # decisions with a grade
    informative: int = 0  # not every graded move worth the same
    lost: int = 0  # informative and above the tolerance
    loss: float = 0.0  # summed over the informative ones
    loss_all: float = 0.0  # over every graded one (a loss under the grade's tolerance counts here)

    def add(self, other: Counts) -> None:
        self.graded += other.graded
        self.informative += other.informative
        self.lost += other.lost
        self.loss += other.loss
        self.loss_all += other.loss_all


@dataclass
class Built:
    """One game's store and every surface written from it."""

    case: Case
    store: Path
    site: Path
    export: Path
    terminal: str
    report_json: Any
    reference: dict[int, Counts] = field(default_factory=dict)  # game id -> the record's counts


def _cli(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    assert code == 0, f"plylab {' '.join(args)} exited {code}: {out.getvalue()[-2000:]}"
    return out.getvalue()


def _reference(store: Path, game: str) -> dict[int, Counts]:
    """Per game, the player's decisions read from the store as the one record (reports.truth.judged)."""
    out: dict[int, Counts] = {}
    with sqlite3.connect(store) as conn:
        rows = conn.execute(
            "SELECT g.id, m.seat, g.player_seat, m.action, m.grade FROM games g JOIN moves m ON m.game_id = g.id"
        ).fetchall()
    for gid, seat, player_seat, action, grade in rows:
        c = out.setdefault(gid, Counts())
        if seat != player_seat:
            continue
        d = judged(game, Grade.from_json(grade) if grade else None, action)
        if d is None:
            continue
        c.graded += 1
        c.loss_all += d.loss
        if d.informative:
            c.informative += 1
            c.loss += d.loss
            c.lost += d.lost
    return out


_BUILT: dict[str, Built] = {}


def browser(fn: Any) -> Any:
    """The browser tests' marks (the system Chromium, the `browser` lane) on one test."""
    for mark in reversed(browser_marks):
        fn = mark(fn)
    return fn


@pytest.fixture(scope="module")
def model_server() -> Iterator[str]:
    """A scripted model: it answers the first legal move it is offered (output=enum)."""
    old = os.environ.get("FAKE_API_KEY")
    os.environ["FAKE_API_KEY"] = "test-key"
    try:
        with FakeOpenAIServer() as srv:
            yield srv.url
    finally:
        if old is None:
            os.environ.pop("FAKE_API_KEY", None)
        else:
            os.environ["FAKE_API_KEY"] = old


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory, model_server: str):
    """`build(case)`: the game's store and surfaces, made once per game and shared by its tests."""

    def make(case: Case) -> Built:
        if case.game in _BUILT:
            return _BUILT[case.game]
        g = get_game(case.game)
        assert g.ground_truth is not None
        try:
            grader = g.ground_truth.grader(g, "" if case.score == "on" else case.score)
        except UserError as exc:  # a solver not built here (the Connect Four extension without a compiler)
            pytest.skip(str(exc))
        if grader is None:
            pytest.skip(f"{case.game}'s ground truth ({g.ground_truth.name}) is not installed here")
        root = tmp_path_factory.mktemp(case.game)
        store = root / "s.sqlite"
        common = [
            "--games",
            "1",
            "--seed",
            str(SEED),
            "--score",
            case.score,
            "--store",
            str(store),
            "--quiet",
        ]
        for f in case.formulations:
            _cli("run", "--game", case.game, "--formulation", f, "--player", "random", "--opponent", case.opponent, "--run", f"{case.game}-{f}", *common)  # fmt: skip
        llm = f"llm:model=openai-api/fake/m,base_url={model_server},output=enum"
        _cli("run", "--game", case.game, "--player", llm, "--opponent", case.opponent, "--run", f"{case.game}-llm", *common)  # fmt: skip
        terminal = _cli("report", "--store", str(store))
        report_json = json.loads(_cli("report", "--store", str(store), "--format", "json"))
        _cli("report", "--store", str(store), "--html", str(root / "site"), "--replays", "0")
        _cli("export", str(root / "inspect"), "--store", str(store), "--format", "inspect")
        built = Built(
            case, store, root / "site", root / "inspect", terminal, report_json, _reference(store, case.game)
        )
        _BUILT[case.game] = built
        return built

    return make


def test_the_matrix_holds_every_registered_truth() -> None:
    kinds = {c.kind for c in CASES}
    assert kinds == {"exact", "equilibrium", "engine"}, kinds
    assert all(c.formulations and c.formulations[0] == "standard" for c in CASES)


def _replays(site: Path) -> dict[int, dict[str, Any]]:
    """Each replay page's inlined payload, by game id."""
    out = {}
    for page in sorted((site / "games").glob("*.html")):
        found = re.search(
            r'<script type="application/json" id="game-data">(.*?)</script>', page.read_text(), re.S
        )
        assert found, f"{page.name} has no payload"
        out[int(page.stem)] = json.loads(found.group(1))
    return out


def _replay_counts(payload: dict[str, Any]) -> Counts:
    c = Counts()
    for s in payload["steps"]:
        d = s["decision"]
        if s["seat"] != payload["player_seat"] or d is None:
            continue
        c.graded += 1
        c.loss_all += d["loss"]
        if d["informative"]:
            c.informative += 1
            c.loss += d["loss"]
            c.lost += d["lost"]
    return c


def _listed(site: Path) -> dict[int, dict[str, Any]]:
    """The run pages' game lists (the filter's script rows), by game id."""
    out = {}
    for shard in (site / "runs").glob("run-*-games-*.js"):
        text = shard.read_text()
        fields = None
        for page in (site / "runs").glob("run-*.html"):
            found = re.search(r'data-fields="([^"]+)"', page.read_text())
            if found:
                fields = found.group(1).split(",")
                break
        assert fields, "no run page names the game list's fields"
        rows = json.loads(text[text.index("[", text.index(",")) : text.rindex(")")])
        for r in rows:
            row = dict(zip(fields, r, strict=True))
            out[int(row["id"])] = row
    return out


def _exported(export: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """The inspect logs' ground_truth score metadata, by (run, the sample's game index)."""
    from inspect_ai.log import read_eval_log

    out = {}
    for log in export.rglob("*.eval"):
        read = read_eval_log(str(log))
        for s in read.samples or []:
            out[(read.eval.metadata["plylab_run"], int(s.metadata["idx"]))] = s.scores[
                "ground_truth"
            ].metadata
    return out


@pytest.mark.parametrize("case", params())
def test_every_surface_counts_the_same_graded_decisions(build, case: Case) -> None:
    b = build(case)
    total = Counts()
    for c in b.reference.values():
        total.add(c)
    assert total.graded > 0, f"{case.game}: no move of the player was graded"
    # the site's replays: the same record per step
    replays = _replays(b.site)
    assert set(replays) == set(b.reference)
    for gid, payload in replays.items():
        assert _replay_counts(payload) == pytest.approx(b.reference[gid]), (case.game, gid)
        assert payload["truth"] is not None and payload["truth"]["kind"] == case.kind
    # the run pages' game lists: the mean loss over every graded move (backgammon counts turns as
    # gnubg does: checked against its table below)
    listed = _listed(b.site)
    assert set(listed) == set(b.reference)
    if case.game != "backgammon":
        for gid, row in listed.items():
            ref = b.reference[gid]
            assert (row["graded"], row["nonoptimal"]) == (ref.graded, ref.lost), (case.game, gid)
            if ref.graded:
                assert row["mean_loss"] * ref.graded == pytest.approx(ref.loss_all, abs=1e-6)
    # the inspect export: each sample's ground_truth score
    exported = _exported(b.export)
    with sqlite3.connect(b.store) as conn:
        where = {
            gid: (run, idx)
            for gid, run, idx in conn.execute(
                "SELECT g.id, r.name, g.idx FROM games g JOIN runs r ON r.id = g.run_id"
            )
        }
    for gid, ref in b.reference.items():
        meta = exported[where[gid]]
        assert (meta["decisions"], meta["informative"], meta["informative"] - meta["best"]) == (
            ref.graded,
            ref.informative,
            ref.lost,
        )
        assert meta["loss_sum"] == pytest.approx(ref.loss, abs=1e-6)
    # the terminal report and its JSON
    assert b.terminal.strip() and case.game in b.terminal
    mine = [r for r in b.report_json["matchups"] if r["game"] == case.game]
    assert len(mine) == len(case.formulations) + 1  # a matchup per formulation and the model's
    if case.kind == "exact":  # the paper's optimality: scored = informative, optimal = informative - lost
        scored = sum(r["optimality"]["scored"] for r in mine)
        optimal = sum(
            round(r["optimality"]["rate"] * r["optimality"]["scored"])
            for r in mine
            if r["optimality"]["scored"]
        )
        assert (scored, scored - optimal) == (total.informative, total.lost)
    if case.kind == "equilibrium":
        figures = [r["equilibrium"] for r in mine]
        assert sum(e["decisions"] for e in figures) == total.graded
        assert sum(e["informative"] for e in figures) == total.informative
    if case.game == "backgammon":  # gnubg's figures: turns, marks, and the same equity lost
        gnubg = b.report_json["backgammon"]
        assert sum(r["error"] for r in gnubg) == pytest.approx(total.loss, abs=1e-6)
        assert sum(r["decisions"] for r in gnubg) == sum(row["graded"] for row in listed.values())
        marked = sum(r["doubtful"] + r["bad"] + r["very_bad"] for r in gnubg)
        assert marked == sum(row["nonoptimal"] for row in listed.values())


@pytest.mark.parametrize("case", params())
@browser
def test_every_replay_opens_with_every_panel_filled(build, case: Case) -> None:
    b = build(case)
    pages = sorted((b.site / "games").glob("*.html"))
    assert pages
    with chromium() as browser:
        for path in pages:
            with checked_page(browser) as page:
                open_file(page, path)
                for panel in (
                    "#verdict",
                    "#position",
                    "#board-title",
                    "#moves tbody",
                    "#valueline",
                    "#strip",
                ):
                    text = page.locator(panel).first.inner_text().strip()
                    assert text, f"{case.game} {path.name}: {panel} is empty"
                if page.locator("#moves tbody span.tag").count():  # win / draw / loss, not a number
                    assert page.locator("#value-head").inner_text() == "minimax value", path.name
                drawn = page.evaluate(
                    "() => document.querySelector('#board-svg svg') !== null"
                    " || document.getElementById('board').textContent.trim() !== ''"
                )
                assert drawn, f"{case.game} {path.name}: no position, drawn or written"
                if b.reference[int(path.stem)].graded:  # a graded game draws its value line
                    assert page.locator("#value-svg").count() == 1, f"{case.game} {path.name}: no value line"
        for path in [b.site / "index.html", *sorted((b.site / "matchups").glob("*.html"))]:
            with checked_page(browser) as page:
                open_file(page, path)
                assert page.locator("main").inner_text().strip()


def _disguises() -> list[object]:
    return [pytest.param(c, f, id=f"{c.game}-{f}") for c in CASES for f in c.disguises]


def _positions(game: str, plies: int = 6) -> list[Any]:
    """A few positions of a seeded random game (chance resolved by its first outcome)."""
    import random

    g = get_game(game)
    rng = random.Random(SEED)
    state, out = g.new_state(), []
    while not state.is_terminal() and len(out) < plies:
        if state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
            continue
        out.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    return out


ENGINE_ORDER = {"nim", "connect_four"}  # plybench 3.0.5 lists these in the engine's order


@pytest.mark.parametrize(("case", "formulation"), _disguises())
def test_a_disguise_lists_its_moves_in_no_order_of_the_board(case: Case, formulation: str) -> None:
    """Listed in the engine's order, a disguise's moves carry the board's cell order (the Lo Shu square
    read row by row); sorted by name, as plybench's adapter lists them, they carry nothing. Nim and
    Connect Four keep the engine's order, as plybench lists them: there it is the order of the piles and
    columns the disguise names openly (pile 1..4, columns left to right), which hides nothing."""
    f = get_game(case.game).formulation(formulation)
    for state in _positions(case.game):
        labels = list(f.legal_labels(state))
        if f.order_actions:
            assert labels == sorted(labels), f"{case.game} {formulation}: {labels[:9]}"
        else:
            assert case.game in ENGINE_ORDER, f"{case.game} {formulation} lists in the engine's order"


@pytest.mark.parametrize(("case", "formulation"), _disguises())
def test_a_disguise_never_names_the_game(case: Case, formulation: str) -> None:
    """Not in its rules, positions or moves, nor inside a parameter's name (`chess960`)."""
    g = get_game(case.game)
    f = g.formulation(formulation)
    names = [re.compile(p, re.I) for p in (*g.recognition, *g.aliases)]
    for state in _positions(case.game):
        for text in (f.rules(), f.render_state(state), *f.legal_labels(state)):
            found = [p.pattern for p in names if p.search(text)]
            assert not found, f"{case.game} {formulation} names the game ({found}): {text[:200]!r}"
