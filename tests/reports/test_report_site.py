"""The checked interface of `plylab report --html/--latex`, and what the replay pages carry."""

from __future__ import annotations

import html
import json
import re
import sqlite3
from pathlib import Path

import pytest

from plylab.games import get_game


def _game_ids(store: Path) -> list[int]:
    """The two-player games (Clue's have replay pages of their own, `clue-*.html`)."""
    with sqlite3.connect(store) as conn:
        sql = "SELECT g.id FROM games g JOIN runs r ON r.id = g.run_id WHERE r.kind != 'clue' ORDER BY g.id"
        return [r[0] for r in conn.execute(sql)]


def _inlined(page: Path) -> dict:
    text = page.read_text()
    return json.loads(
        re.search(r'<script type="application/json" id="game-data">(.*?)</script>', text, re.DOTALL)[1]
    )


@pytest.mark.slow
def test_report_html_writes_index_plots_and_a_replay_per_game(site: Path, report_store: Path) -> None:
    index = (site / "index.html").read_text()
    for run in ("ttt-mcts", "ttt-random", "nim-mcts", "ttt-llm"):
        assert run in index
    assert list((site / "plots").glob("*.png")) and list((site / "plots").glob("*.svg"))
    for game_id in _game_ids(report_store):
        assert (site / "games" / f"{game_id}.html").is_file()
    assert list((site / "games").glob("clue-*.html")), "the Clue game has a replay page"
    assert "http://" not in re.sub(r'https?://127\.0\.0\.1[^"<\s]*', "", index), (
        "nothing is fetched from the web"
    )


def test_replay_payload_matches_the_store_and_the_oracle(site: Path, report_store: Path) -> None:
    conn = sqlite3.connect(report_store)
    conn.row_factory = sqlite3.Row
    game_id = conn.execute("SELECT id FROM games WHERE game='tic_tac_toe' ORDER BY id LIMIT 1").fetchone()[0]
    moves = conn.execute("SELECT * FROM moves WHERE game_id=? ORDER BY ply", (game_id,)).fetchall()
    payload = _inlined(site / "games" / f"{game_id}.html")
    assert len(payload["steps"]) == len(moves)
    game = get_game("tic_tac_toe")
    formulation, oracle = game.formulation("standard"), game.oracle()
    names = {1: "win", 0: "draw", -1: "loss"}
    for step, move in zip(payload["steps"], moves):
        state = game.engine.deserialize_state(move["state"])
        # Bots' moves store no observation (the harness renders it only for models and humans).
        assert step["board"] == formulation.render_state(state)
        assert move["observation"] in (None, step["board"])
        values = oracle.move_values(state).values
        assert {m["label"]: m["value"] for m in step["legal"]} == {
            formulation.action_label(state, a): names[v] for a, v in values.items()
        }
    assert "Game over" in payload["final"]["board"]


def test_llm_moves_carry_prompt_reply_and_tokens(site: Path, report_store: Path) -> None:
    with sqlite3.connect(report_store) as conn:
        game_id = conn.execute(
            "SELECT g.id FROM games g JOIN runs r ON r.id=g.run_id WHERE r.name='ttt-llm'"
        ).fetchone()[0]
    steps = [
        s for s in _inlined(site / "games" / f"{game_id}.html")["steps"] if s["player"].startswith("llm:")
    ]
    assert steps and all(s["prompt"] and s["reply"] and s["reasoning"].startswith("I take") for s in steps)
    assert all(s["tokens"]["input"] > 0 and s["tokens"]["output"] > 0 and s["calls"] == 1 for s in steps)


@pytest.mark.slow
def test_report_for_one_run_only(report_store: Path, tmp_path: Path, cli) -> None:
    result = cli("report", "--store", str(report_store), "--run", "nim-mcts", "--html", str(tmp_path / "one"))
    assert result.code == 0, result.err
    pages = list((tmp_path / "one" / "games").glob("*.html"))
    assert len(pages) == 2 and "ttt-mcts" not in (tmp_path / "one" / "index.html").read_text()


def test_report_latex_writes_the_paper_tables(report_store: Path, tmp_path: Path, cli) -> None:
    result = cli("report", "--store", str(report_store), "--latex", str(tmp_path / "tex"))
    assert result.code == 0, result.err
    tex = tmp_path / "tex"
    names = {p.stem for p in tex.glob("*.tex")}
    assert {
        "tables",
        "optimality-tic_tac_toe",
        "optimality-nim",
        "outcomes-tic_tac_toe",
        "ratings-tic_tac_toe",
        "ratings-nim",
        "tokens-tic_tac_toe",
        "recognition-tic_tac_toe",
    } <= names
    index = (tex / "tables.tex").read_text()
    assert all(rf"\input{{{n}}}" in index for n in names - {"tables"})
    table = (tex / "optimality-tic_tac_toe.tex").read_text()
    assert (
        table.count(r"\begin{tabular}") == 1
        and r"\toprule" in table
        and r"\label{tab:optimality-tic_tac_toe}" in table
    )
    assert "mcts:sims=50" in table and "hidden" in table and "standard" in table
    outcomes = (tex / "outcomes-tic_tac_toe.tex").read_text()
    assert "W D L F by opponent" in outcomes
    ratings = (tex / "ratings-tic_tac_toe.tex").read_text()
    # random only lost to optimal, so no game gives it a finite rating (issue 30): it is named unrated
    assert r"random & -- & --" in ratings and "not rated" in ratings and "exactly 1000" not in ratings


def test_missing_store_is_one_clear_error(tmp_path: Path, cli) -> None:
    result = cli("report", "--store", str(tmp_path / "nope.sqlite"), "--html", str(tmp_path / "out"))
    assert result.code == 2 and "does not exist" in result.err
    assert not (tmp_path / "out").exists()


def test_learning_section_only_with_learning_runs(report_store: Path, tmp_path: Path, monkeypatch) -> None:
    from matplotlib.figure import Figure

    from plylab.analysis import learning as learning_module
    from plylab.harness.store import Store
    from plylab.reports import extras

    def fake_plot_learning(store_path: Path, run: str | None, out_dir: Path) -> list[Path]:
        out_dir.mkdir(parents=True, exist_ok=True)
        Figure().savefig(out_dir / "learning-tic_tac_toe-standard-optimal-draw_rate.png")
        return [out_dir / "learning-tic_tac_toe-standard-optimal-draw_rate.png"]

    monkeypatch.setattr(learning_module, "plot_learning", fake_plot_learning)
    assert extras.learning(report_store, None, tmp_path / "a") is None, "no learning runs, no section"
    store_path = tmp_path / "learn.sqlite"
    store = Store(store_path)
    store.open_run("learn.x", 0, {"phase": "learn"}, kind="learn")
    store.close()
    section = extras.learning(store_path, None, tmp_path / "b")
    assert (
        section is not None
        and section.plots[0].png == "plots/learning-tic_tac_toe-standard-optimal-draw_rate.png"
    )
    assert section.plots[0].caption == "tic tac toe · standard · optimal · draw rate"


def test_plies_moves_and_turns_are_named_as_the_manual_defines_them(site: Path, report_store: Path) -> None:
    """The manual's terms (docs/getting-started.md): a ply is one action by one seat, counted from 0 as the store counts it; a move
    is a player's decision at one of its plies; a turn is Clue's. The game list's column of both
    seats' plies read "moves", the replay's value line counted plies from 1 beside a store and an
    address (#ply=) that count from 0, and the replay controls stepped by "move" (Clue's too)."""
    conn = sqlite3.connect(report_store)
    conn.row_factory = sqlite3.Row
    two_player = "SELECT g.* FROM games g JOIN runs r ON r.id = g.run_id WHERE r.kind != 'clue'"
    games = conn.execute(two_player + " ORDER BY g.id").fetchall()
    plies = sum(g["num_moves"] for g in games)
    assert (
        plies
        == conn.execute(
            f"SELECT COUNT(*) FROM moves WHERE game_id IN (SELECT id FROM ({two_player}))"
        ).fetchone()[0]
    )
    index = (site / "index.html").read_text()
    assert f" · {plies} plies." in index and f"{plies} moves" not in index

    run_id = conn.execute("SELECT id FROM runs WHERE name = 'ttt-mcts'").fetchone()[0]
    run_page = (site / "runs" / f"run-{run_id}.html").read_text()
    games_table = run_page[run_page.index('id="games"') :]
    header = [
        html.unescape(h)
        for h in re.findall(r"<th>([^<]*)</th>", games_table[: games_table.index("</thead>")])
    ]
    assert "plies" in header and "moves" not in header and "non-optimal moves" in header
    body = games_table[games_table.index("<tbody>") : games_table.index("</tbody>")]
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.DOTALL)
    column = header.index("plies")
    for row, g in zip(rows, (g for g in games if g["run_id"] == run_id), strict=True):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)
        assert cells[column] == str(g["num_moves"])  # both seats' plies, not the player's moves

    g = next(g for g in games if g["run_id"] == run_id)
    replay = (site / "games" / f"{g['id']}.html").read_text()
    stored = [
        r["ply"] for r in conn.execute("SELECT ply FROM moves WHERE game_id = ? ORDER BY ply", (g["id"],))
    ]
    assert stored[0] == 0
    shown = [int(k) for k in re.findall(r"<title>ply (\d+) \(", replay)]
    assert shown == stored  # the value line's plies, as stored (and as #ply= addresses them)
    controls = replay[replay.index('class="controls"') : replay.index('<ol id="strip"') + 60]
    assert 'title="first ply (Home)"' in controls and 'aria-label="ply"' in controls
    assert 'aria-label="plies"' in controls and "move" not in controls

    clue = next((site / "games").glob("clue-*.html")).read_text()
    clue_controls = clue[clue.index('class="controls"') : clue.index('<ol id="strip"') + 60]
    assert 'title="next turn (→)"' in clue_controls and 'aria-label="turns"' in clue_controls
    assert "ply" not in clue_controls and "move" not in clue_controls
