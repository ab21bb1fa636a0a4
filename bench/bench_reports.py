"""Report benchmark (issue 9): how long `plylab report --html` and `--latex` take, and how big the site is.

    .venv/bin/python bench/bench_reports.py                    # figures, written to bench/RESULTS-reports.md
    .venv/bin/python bench/bench_reports.py --games 50 --out - # a smaller store, print only
    .venv/bin/python bench/bench_reports.py --scale 20000 --baseline /tmp/old/src   # memory at scale (issue 15)
    .venv/bin/python bench/bench_reports.py --long-replies 3 --baseline /tmp/old/src  # a long reply's bytes

The store is real: tic-tac-toe (random and MCTS against optimal, in two formulations), Nim (MCTS
against random) and Clue (bots), played here first. Then, on that store:
1. the whole site (every replay page, tables, ratings, plots, Clue replays), wall and CPU seconds;
2. its parts: one two-player replay payload, one Clue replay payload (each re-deals and re-derives
   every seat's matrix and oracle), the ratings with their bootstrap, the three matplotlib figures;
3. the site's size: files, total MB, the largest replay page;
4. the LaTeX tables.
CPU seconds are the stable figure on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from plylab.analysis.metrics import matchup_results
from plylab.cli import main as plylab
from plylab.harness.store import Store
from plylab.reports import charts, clue, data
from plylab.reports.latex import write_latex
from plylab.reports.ratings import rate
from plylab.reports.site import SiteWriter, write_site

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "RESULTS-reports.md"


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def build_store(path: Path, games: int, clue_games: int) -> None:
    runs = [
        ("tic_tac_toe", "standard", "random", "optimal"),
        ("tic_tac_toe", "hidden", "mcts:sims=50", "optimal"),
        ("nim", "standard", "mcts:sims=50", "random"),
    ]
    for game, form, player, opponent in runs:
        assert (
            plylab(
                [
                    "run",
                    "--game",
                    game,
                    "--formulation",
                    form,
                    "--player",
                    player,
                    "--opponent",
                    opponent,
                    "--games",
                    str(games),
                    "--store",
                    str(path),
                    "--run",
                    f"{game}-{form}-{player}",
                ]
            )
            == 0
        )
    seats = ["clue-oracle", "clue-matrix", "clue-matrix", "clue-random", "clue-random", "clue-random"]
    assert (
        plylab(
            [
                "clue",
                "run",
                *(a for s in seats for a in ("-p", s)),
                "--games",
                str(clue_games),
                "--store",
                str(path),
                "-q",
            ]
        )
        == 0
    )


def parts(path: Path, out: Path) -> dict[str, tuple[float, float]]:
    store = Store(path, create=False)
    try:
        runs = store.runs()
        ids = [r.id for r in runs]
        matchups = store.frame(ids).matchup_counts()
        rows = matchup_results(store)
        first = store.games()[0]  # the first game of the first run
        moves = store.moves(first.id)
        results = [r for _, r in data.rating_results(store, ids)]
    finally:
        store.close()
    n_games = sum(m.games for m in matchups)

    def run_pages() -> None:
        store = Store(path, create=False)
        try:
            SiteWriter(path, out / "pages").run_pages(store, runs, matchups, rows)
        finally:
            store.close()

    figures: dict[str, Callable[[], Any]] = {
        f"all {n_games} two-player replay pages and run pages": run_pages,
        "ratings (300 bootstrap fits)": lambda: rate(results),
        "one replay payload (tic-tac-toe)": lambda: data.replay_payload(first, moves, "r"),
        "one Clue replay payload": lambda: next(clue.replays(path)),
        "optimality plot (PNG+SVG)": lambda: charts.optimality(rows, out),
        "outcomes plot (PNG+SVG)": lambda: charts.outcomes(rows, out),
    }
    return {name: timed(fn)[1:] for name, fn in figures.items()}


# Peak resident memory of one command, measured by a fresh interpreter around it (its own child).
MEASURE = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
SCALE_HEADER = "## Memory and size at scale (issue 15 point 7)"


def peak(args: list[str], src: str | None) -> tuple[float, float]:
    """(peak RSS in MB, wall seconds) of `plylab ARGS`, with `src` first on the path when given."""
    env = {**os.environ, **({"PYTHONPATH": src} if src else {})}
    wall = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-c", MEASURE, sys.executable, "-m", "plylab", *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    code, kb = res.stdout.split()
    assert code == "0", f"plylab {args} failed"
    return int(kb) / 1024, time.perf_counter() - wall


def site_size(site: Path) -> tuple[float, int, int]:
    files = [p for p in site.rglob("*") if p.is_file()]
    return (
        sum(p.stat().st_size for p in files) / 1e6,
        len(list((site / "games").glob("*.html"))),
        len(list((site / "runs").glob("*.html"))),
    )


def reply_copies() -> str:
    """How many bytes a stored 5 MB reply costs the store (its move column, and its attempt)."""
    from plylab.harness.records import GameRecord
    from plylab.harness.rows import MoveRow, json_text

    reply = "x" * 5_000_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.sqlite"
        store = Store(path)
        move = MoveRow(
            ply=0,
            seat=0,
            player="llm",
            state="",
            legal="[0]",
            action=0,
            action_label="a",
            prompt="p" * 100,
            reply=reply,
            calls=1,
            attempts=json_text([{"prompt": "p" * 100, "reply": reply}]),
        )
        store.save_game(
            store.open_run("r", 0, {}),
            GameRecord(
                "k",
                0,
                "tic_tac_toe",
                "standard",
                "llm",
                "random",
                0,
                0,
                [0.0, 0.0],
                "draw",
                None,
                None,
                [move],
                0,
                0,
            ),
        )
        store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the file at its size
        store.close()
        size = path.stat().st_size
    return (
        f"A 5 MB reply (with its attempt) grows a fresh store to {size / 1e6:.1f} MB: stored once in the move's "
        "`reply` column, its attempt refers to it (before: twice that, a second copy in `attempts`; tests/reports/test_report_scale.py). The "
        "response cache's copy, needed to resume without calling again, is lent to the saved move (next section)."
    )


def scale(games: int, baseline: str | None) -> str:
    """A store of `games` random-vs-random tic-tac-toe games; peak memory of report and --html."""
    lines = [SCALE_HEADER, ""]
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "big.sqlite"
        _, build, _ = timed(
            lambda: plylab(
                [
                    "run",
                    "--game",
                    "tic_tac_toe",
                    "--player",
                    "random",
                    "--opponent",
                    "random",
                    "--games",
                    str(games),
                    "--store",
                    str(store),
                    "--quiet",
                ]
            )
        )
        mb = store.stat().st_size / 1e6
        lines += [
            f"Store: {games} tic-tac-toe games (random vs random, every move scored), {mb:.0f} MB, built in "
            f"{build:.0f} s. Peak resident memory of the command (RUSAGE_CHILDREN of a wrapper process).",
            "",
            "| code | `report` MB | `report` s | `report --html` MB | `--html` s | site MB | replay pages "
            "| run pages | `export --table moves` MB |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for label, src in ([("before (" + baseline + ")", baseline)] if baseline else []) + [
            ("this checkout", None)
        ]:
            rss, wall = peak(["report", "--store", str(store)], src)
            site = Path(tmp) / f"site-{len(lines)}"
            hrss, hwall = peak(["report", "--store", str(store), "--html", str(site)], src)
            size, replays, pages = site_size(site)
            shutil.rmtree(site)
            erss, _ = peak(
                ["export", str(Path(tmp) / "moves.csv"), "--store", str(store), "--table", "moves"], src
            )
            lines.append(
                f"| {label} | {rss:.0f} | {wall:.1f} | {hrss:.0f} | {hwall:.1f} | {size:.1f} | {replays} | "
                f"{pages} | {erss:.0f} |"
            )
    lines += [
        "",
        reply_copies(),
        "",
        "The site lists every game (500 a page) and writes replay pages for the first 50 games of each "
        "matchup and seat (`--replays N`; 0 = all). Test: tests/reports/test_report_scale.py (< 250 MB).",
        "",
    ]
    return "\n".join(lines)


LONG_HEADER = "## A long reply in the store (issue 15 point 7)"
LONG_CHARS = 900_000  # characters a reply (under the door's 1,000,000 cap); its trace a third of that


def long_replies(games: int, baseline: str | None) -> str:
    """Store bytes per model move when every reply is ~900 kB: a real run through the loopback server."""
    import json

    sys.path.insert(0, str(ROOT))
    from tests.support.fake_openai_server import Behaviour, FakeOpenAIServer, legal_move

    class Long(FakeOpenAIServer):
        async def _answer(self, request: Any, body: dict[str, Any], b: Behaviour) -> Any:
            n = len(self.requests)
            word = f"thought{n} "
            text = (word * (LONG_CHARS // len(word))) + "\n" + legal_move(body)
            return await super()._answer(
                request, body, Behaviour(text=text, reasoning=text[: LONG_CHARS // 3])
            )

    lines = [
        LONG_HEADER,
        "",
        f"A real run: tic-tac-toe, `llm:` through the loopback OpenAI server (every reply {LONG_CHARS:,} characters "
        f"of distinct text and a {LONG_CHARS // 3:,}-character trace) against random, {games} games. Bytes on disk "
        "after the run (the file and any -wal), against the distinct text that went over the wire (replies, traces, prompts).",
        "",
        "| code | model moves | store MB | MB per model move | store / distinct text |",
        "|---|---|---|---|---|",
    ]
    os.environ["LONG_API_KEY"] = "sk-bench"
    for label, src in ([("before (" + baseline + ")", baseline)] if baseline else []) + [
        ("this checkout", None)
    ]:
        with tempfile.TemporaryDirectory() as tmp, Long() as server:
            store = Path(tmp) / "s.sqlite"
            spec = f"llm:model=openai-api/long/m,base_url={server.url}"
            args = [
                "run",
                "--game",
                "tic_tac_toe",
                "--player",
                spec,
                "--opponent",
                "random",
                "--games",
                str(games),
            ]
            env = {**os.environ, **({"PYTHONPATH": src} if src else {})}
            cmd = [sys.executable, "-m", "plylab", *args, "--store", str(store), "--seed", "1", "--quiet"]
            subprocess.run(cmd, env=env, check=True, capture_output=True)
            size = sum(p.stat().st_size for p in Path(tmp).glob("s.sqlite*"))
            texts = {json.dumps(m["content"]) for r in server.requests for m in r["messages"]}
            wire = sum(len(t) - 2 for t in texts) + sum(
                LONG_CHARS + 20 + LONG_CHARS // 3 for _ in server.requests
            )
            moves = len(server.requests)
        lines.append(
            f"| {label} | {moves} | {size / 1e6:.1f} | {size / 1e6 / moves:.2f} | {size / wire:.2f} |"
        )
    lines += [
        "",
        "Before, the response cache kept a second copy of each reply, trace and prompt beside the move's; now the "
        "cache lends its long texts to the saved move (the `texts` table keeps where they live, models/cache.py). "
        "Test: tests/models/test_stored_once.py (< 1.3 x the distinct text, in `run` and in Clue).",
        "",
    ]
    return "\n".join(lines)


def write_section(out: str, header: str, section: str) -> None:
    """Put `section` in the results file in place of its old `## ` section (or at the end)."""
    old = Path(out).read_text() if Path(out).exists() else ""
    head, *rest = old.split("\n## ")
    sections = ["## " + p.strip("\n") for p in rest]
    at = next((i for i, p in enumerate(sections) if p.startswith(header)), len(sections))
    sections[at : at + 1] = [section.strip("\n")]
    Path(out).write_text("\n\n".join([head.strip("\n")] * bool(head.strip()) + sections) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games per two-player matchup (3 matchups)")
    ap.add_argument("--clue-games", type=int, default=10)
    ap.add_argument("--out", default=str(RESULTS), help="results file, or - to print only")
    ap.add_argument(
        "--scale",
        type=int,
        metavar="GAMES",
        help="instead: peak memory and site size of report/--html on a store of GAMES games",
    )
    ap.add_argument(
        "--baseline",
        metavar="SRC",
        help="with --scale or --long-replies: also measure the plylab package under SRC "
        "(e.g. an older checkout's src, from `git archive REV src | tar -x -C DIR`)",
    )
    ap.add_argument(
        "--long-replies",
        type=int,
        metavar="GAMES",
        help="instead: store bytes per model move when every reply is ~900 kB (GAMES games)",
    )
    args = ap.parse_args()
    if args.long_replies:
        section = long_replies(args.long_replies, args.baseline)
        command = "python bench/bench_reports.py " + shlex.join(sys.argv[1:])
        section = section.replace("\n\n", f"\n\nCommand: `{command}`.\n\n", 1)
        print(section)
        if args.out != "-":
            write_section(args.out, LONG_HEADER, section)
        return
    if args.scale:
        section = scale(args.scale, args.baseline)
        command = "python bench/bench_reports.py " + shlex.join(sys.argv[1:])
        section = section.replace("\n\n", f"\n\nCommand: `{command}`.\n\n", 1)
        print(section)
        if args.out != "-":
            write_section(args.out, SCALE_HEADER, section)
        return
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "bench.sqlite"
        _, build_wall, _ = timed(lambda: build_store(store, args.games, args.clue_games))
        with sqlite3.connect(store) as conn:
            n_games = conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            n_moves = conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
        site = Path(tmp) / "site"
        _, site_wall, site_cpu = timed(lambda: write_site(store, None, site))
        _, tex_wall, tex_cpu = timed(lambda: write_latex(store, None, Path(tmp) / "tex"))
        part = parts(store, Path(tmp) / "plots")
        files = [p for p in site.rglob("*") if p.is_file()]
        replays = {p.name: p.stat().st_size for p in (site / "games").glob("*.html")}
        largest = max(replays, key=replays.__getitem__)
        size_mb = sum(p.stat().st_size for p in files) / 1e6

    pages_cpu = next(c for name, (_, c) in part.items() if name.startswith("all "))
    clue_cpu = part["one Clue replay payload"][1]
    command = "python bench/bench_reports.py " + shlex.join(sys.argv[1:])
    lines = [
        "# Report benchmark (issue 9)",
        "",
        (
            f"Command: `{command.strip()}` (store built in {build_wall:.0f} s: {n_games} two-player games with "
            f"{n_moves} moves, and {args.clue_games} Clue games)."
        ),
        "Machine: shared 2-core development box; CPU seconds are the stable figure.",
        "",
        "| what | wall s | CPU s |",
        "|---|---|---|",
        f"| whole site (`plylab report --html`) | {site_wall:.2f} | {site_cpu:.2f} |",
        f"| LaTeX tables (`plylab report --latex`) | {tex_wall:.2f} | {tex_cpu:.2f} |",
        *(f"| {name} | {w:.3f} | {c:.3f} |" for name, (w, c) in part.items()),
        "",
        (
            f"Site: {len(files)} files, {size_mb:.1f} MB; {len(replays)} replay pages; largest "
            f"{largest} at {replays[largest] / 1e3:.0f} kB."
        ),
        "",
        (
            f"Reading: a two-player replay page costs {1e3 * pages_cpu / max(n_games, 1):.1f} ms CPU; a Clue replay "
            f"{clue_cpu:.2f} s CPU, because it re-derives every seat's matrix and SAT oracle after every turn, so "
            "Clue games dominate the build of a store that has them."
        ),
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.out != "-":
        old = Path(args.out).read_text() if Path(args.out).exists() else ""
        kept = (
            old[old.index("\n## ") + 1 :] if "\n## " in old else ""
        )  # the --scale and --long-replies sections
        Path(args.out).write_text(text + ("\n" + kept if kept else ""))


if __name__ == "__main__":
    main()
