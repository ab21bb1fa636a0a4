"""Every output plylab writes from one sample store, for a before/after comparison of a refactor.

    python bench/outputs_snapshot.py build STORE      # a sample store: classic, hidden, LLM, Clue, paper, learn runs
    python bench/outputs_snapshot.py render STORE DIR # every report, site page, LaTeX, CSV and export into DIR
    diff -r BEFORE AFTER                              # render with each checkout, from the same store

The store is built once (its run times are in it) and rendered by each version of the code, so the
two directories differ only where the code does. An LLM player answers through a loopback
OpenAI-compatible server (the first legal move); the learning runs are hand-built records.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from plylab.cli import main  # noqa: E402


def plylab(*args: str, out: Path | None = None) -> None:
    """`plylab ARGS`; its stdout into `out` when given. A failure is printed, not raised: some
    outputs are refusals, and the refusal text is part of the snapshot."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        code = main(list(args))
    if out is not None:
        out.write_text(f"{buf.getvalue()}\n[exit {code}]\n")
    elif code != 0:
        print(f"plylab {' '.join(args)} exited {code}:\n{buf.getvalue()}", file=sys.stderr)


def _learn_runs(store_path: Path) -> None:
    from plylab.harness.store import Store
    from tests.support import records

    store = Store(store_path)
    for agent, per_checkpoint in {
        "reaper:model=m": [[1, 2, 1], [3, 4, 3]],
        "cbr:model=m": [[1, 1, 2], [2, 2, 1]],
    }.items():
        name = agent.split(":")[0]
        setting = {"game": "tic_tac_toe", "formulation": "standard", "opponent": "optimal"}
        ident = {"name": name, **setting, "agent": agent, "seed": 0, "learn_games": 20, "eval_games": 4}
        for c, draws in enumerate(per_checkpoint):
            for r, d in enumerate(draws):
                plan = {"learn": ident, "run": r, "phase": "eval", "index": c, "games": 4, "player": agent}
                run_id = store.open_run(f"{name}/run{r}/eval{c}", 0, plan, kind="learn")
                for g in range(4):
                    draw = g < d
                    moves = [
                        records.move(
                            2 * i, seat=0, player=agent, legal=[0, 1], action_label="A1", elapsed=0.1,
                            optimal=(i + g + c) % 3 != 0, informative=True, output_tokens=40 + 7 * i, calls=1,
                        )
                        for i in range(3)
                    ]  # fmt: skip
                    rec = records.game(
                        moves, job_key=f"{name}|{r}|{c}|{g}", player=agent, opponent="optimal",
                        returns=[0.0, 0.0] if draw else [-1.0, 1.0], outcome="draw" if draw else "loss",
                    )  # fmt: skip
                    store.save_game(run_id, rec)
                store.finish_run(run_id, "finished")
    store.close()


def build(store: Path) -> None:
    from tests.support.fake_openai_server import FakeOpenAIServer

    s = str(store)

    def run(name: str, game: str, player: str, opponent: str, games: int, *extra: str) -> None:
        plylab("run", "--game", game, "--player", player, "--opponent", opponent, "--games", str(games),
               "--store", s, "--run", name, "--quiet", *extra)  # fmt: skip

    run("ttt-mcts", "tic_tac_toe", "mcts:sims=50", "optimal", 4)
    run("ttt-random", "tic_tac_toe", "random", "optimal", 2, "--formulation", "hidden")
    run("nim-mcts", "nim", "mcts:sims=50", "random", 2)
    run("c4-random", "connect_four", "random", "mcts:sims=20", 2)
    run("kuhn", "kuhn_poker", "random", "mcts:sims=20", 4)
    run("leduc", "leduc_poker", "random", "random", 2)
    run("chess", "chess", "stockfish:nodes=2000", "random", 1)
    with FakeOpenAIServer() as server:
        os.environ["FAKE_API_KEY"] = "k"
        run(
            "ttt-llm",
            "tic_tac_toe",
            f"llm:model=openai-api/fake/m,base_url={server.url},output=json",
            "optimal",
            2,
        )
        run("c4-llm", "connect_four", f"llm:model=openai-api/fake/m,base_url={server.url}", "random", 1)
    plylab("clue", "run", *[a for p in ("clue-matrix", "clue-oracle", "clue-random") * 2 for a in ("-p", p)],
           "--games", "1", "--store", s, "-q")  # fmt: skip
    plylab("paper", "run", "table7", "--references", "--games", "2", "--store", s, "--quiet")
    _learn_runs(store)


def render(store: Path, out: Path) -> None:
    from plylab.analysis.tables import BY, FORMATS, REPORT_TABLES

    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    os.environ["SOURCE_DATE_EPOCH"] = "0"  # matplotlib's SVG date and ids: the same in every render
    import matplotlib

    matplotlib.rcParams["svg.hashsalt"] = "snapshot"
    # A copy inside DIR, named relatively: outputs that name the store or their own files read the
    # same from every DIR and every store's path, and nothing can write to the sample store.
    shutil.copy2(store, out / "store.sqlite")  # its time too: the site stamps it
    s = "store.sqlite"
    os.chdir(out)
    out = Path(".")
    for table in REPORT_TABLES:
        for fmt in FORMATS:
            plylab(
                "report", "--store", s, "--table", table, "--format", fmt, out=out / f"report-{table}.{fmt}"
            )
    for by in BY:
        plylab("report", "--store", s, "--by", by, out=out / f"report-by-{by}.md")
    for fmt in ("table", "markdown", "json", "csv"):
        plylab("report", "--store", s, "--learning", "--format", fmt, out=out / f"learning.{fmt}")
    plylab("report", "--store", s, "--run", "ttt-mcts", out=out / "report-run.md")
    plylab("report", "--store", s, "--html", str(out / "site"), out=out / "site.log")
    plylab("report", "--store", s, "--latex", str(out / "latex"), out=out / "latex.log")
    for table in ("runs", "games", "moves"):
        plylab(
            "export",
            str(out / f"export-{table}.csv"),
            "--store",
            s,
            "--table",
            table,
            out=out / f"export-{table}.log",
        )
    plylab("export", str(out / "chess.pgn"), "--store", s, "--format", "pgn", out=out / "pgn.log")
    plylab("export", str(out / "inspect"), "--store", s, "--format", "inspect", out=out / "inspect.log")
    for fmt in ("json", "markdown", "table"):
        plylab("clue", "report", "--store", s, "--format", fmt, out=out / f"clue.{fmt}")
    from plylab.paper.protocols import PROTOCOLS

    for name in PROTOCOLS:
        for fmt in ("markdown", "table", "csv", "json", "latex", "html"):
            plylab("paper", "report", name, "--store", s, "--format", fmt, out=out / f"paper-{name}.{fmt}")
    _normalise_inspect(out / "inspect")
    for f in Path(".").glob("store.sqlite*"):
        f.unlink()


def _normalise_inspect(folder: Path) -> None:
    """inspect's logs are zip files named by time: unpack each under a stable name."""
    import zipfile

    if not folder.is_dir():
        return
    for log in sorted(folder.rglob("*.eval")):
        with zipfile.ZipFile(log) as z:
            for member in z.namelist():
                target = log.with_suffix("") / member
                target.parent.mkdir(parents=True, exist_ok=True)
                data = z.read(member)
                if member.endswith(".json"):  # inspect's random ids, each log's own: not ours to compare
                    text = re.sub(rb'"(id|uuid|eval_id)":"[A-Za-z0-9]{22}"', rb'"\1":"*"', data)
                    data = json.dumps(json.loads(text), indent=1, sort_keys=True).encode()
                target.write_bytes(data)
        log.unlink()


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "build":
        build(Path(sys.argv[2]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "render":
        render(Path(sys.argv[2]), Path(sys.argv[3]).resolve())
    else:
        sys.exit(__doc__)
