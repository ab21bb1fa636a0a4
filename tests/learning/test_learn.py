"""The learning protocol with the real local model (Gemma 3 270M) on tiny budgets.

The model plays badly; what is tested is the machinery: every variant completes `plylab learn`,
memory fills with labelled, deduplicated cases and rules, evaluation leaves memory untouched,
a resumed run ends with exactly the memory (and games) of an uninterrupted one, the report
and plots read it back, and `reaper:memory=PATH` plays the trained memory in `plylab run`.
One model load and one learning run are shared by the module (the CI machine has 2 cores).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from plylab.analysis.learning import plot_learning
from plylab.cli import main
from plylab.learning import Experiment, Learner, RunFiles, memory_root
from plylab.players.canonical import canonical_spec
from plylab.players.reaper import CaseMemory
from tests.support.cli import run_args

pytestmark = [pytest.mark.slow, pytest.mark.model]  # REAPER on the local model and the sentence encoder

# answer=legal,force_final=on: the 270M base model needs its one round forced to a legal answer
# (the paper's free answer and unforced rounds, the defaults, mostly fail with it).
TINY = (
    "model=local,max_tokens=48,iterations=1,k=4,max_rules=3,update_max_tokens=256,answer=legal,force_final=on"
)
AGENT = f"reaper:{TINY}"
BUDGET = ["--runs", "1", "--epochs", "1", "--learn-games", "2", "--eval-games", "1", "--quiet"]


def learn_cli(store: Path, agent: str, *extra: str, budget: list[str] = BUDGET) -> int:
    return main(
        [
            "learn",
            "--game",
            "tic_tac_toe",
            "--player",
            agent,
            "--opponent",
            "optimal",
            *budget,
            "--store",
            str(store),
            *extra,
        ]
    )


def experiment(name: str) -> Experiment:
    return Experiment(
        "tic_tac_toe", "standard", AGENT, "optimal", runs=1, epochs=1, learn_games=2, eval_games=1, name=name
    )


def files(store: Path, name: str) -> RunFiles:
    return RunFiles(memory_root(store, experiment(name)) / "run0")


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def responses(store: Path) -> int:
    with sqlite3.connect(store) as conn:
        return conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]


def actions(store: Path, name: str) -> dict[str, list[int | None]]:
    """Every game's moves by phase and job key (the identity of what was played)."""
    with sqlite3.connect(store) as conn:
        rows = conn.execute(
            "SELECT r.name, g.job_key, m.action FROM runs r JOIN games g ON g.run_id = r.id "
            "JOIN moves m ON m.game_id = g.id WHERE r.name LIKE ? ORDER BY r.name, g.job_key, m.ply",
            (f"{name}/%",),
        ).fetchall()
    out: dict[str, list[int | None]] = {}
    for run, key, action in rows:
        out.setdefault(f"{run.split('/', 1)[1]}|{key}", []).append(action)
    return out


def eval_from_store(store: Path, name: str, checkpoint: int) -> tuple[float, float]:
    """A checkpoint's draw rate and output tokens per model move, counted from its evaluation
    games' rows in SQL (independently of the report's aggregation; one run, so the mean is the run's)."""
    run = f"{name}/run0/eval{checkpoint}"
    with sqlite3.connect(store) as conn:
        games, draws = conn.execute(
            "SELECT COUNT(*), TOTAL(g.outcome = 'draw') FROM games g JOIN runs r ON r.id = g.run_id "
            "WHERE r.name = ?",
            (run,),
        ).fetchone()
        moves, tokens = conn.execute(
            "SELECT COUNT(*), TOTAL(m.output_tokens) FROM moves m JOIN games g ON g.id = m.game_id "
            "JOIN runs r ON r.id = g.run_id WHERE r.name = ? AND m.calls + m.cache_hits > 0",
            (run,),
        ).fetchone()
    assert games > 0 and moves > 0, run
    return draws / games, tokens / moves


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("learn") / "s.sqlite"
    assert learn_cli(path, AGENT, "--name", "a") == 0
    return path


def report(store: Path, capsys: pytest.CaptureFixture[str], fmt: str = "json") -> str:
    capsys.readouterr()
    assert main(["report", "--store", str(store), "--learning", "--format", fmt]) == 0
    return capsys.readouterr().out


def test_reaper_learns_and_the_report_has_every_checkpoint(store, capsys):
    data = json.loads(report(store, capsys))
    (exp,) = data["experiments"]
    assert exp["agent"] == canonical_spec(AGENT) and exp["name"] == "a"  # printed canonical (issue 30.3)
    assert [c["checkpoint"] for c in exp["checkpoints"]] == [0, 1]
    for c in exp["checkpoints"]:
        assert c["runs"] == 1
        for metric in ("draw_rate", "win_rate", "optimality", "tokens_per_move"):
            assert set(c[metric]) == {"mean", "low", "high", "n"}
        draws, tokens = eval_from_store(store, "a", c["checkpoint"])
        assert c["draw_rate"]["mean"] == pytest.approx(draws)
        assert c["tokens_per_move"]["mean"] == pytest.approx(tokens) and tokens > 0
    assert "| reaper:" in report(store, capsys, "markdown")


def test_memory_holds_labelled_deduplicated_cases_and_rules(store):
    mem = CaseMemory.open(files(store, "a").latest, frozen=True, game="tic_tac_toe")
    cases = mem.cases()
    assert cases and mem.games_learned == 2
    assert {c.label for c in cases} <= {"positive", "negative"} and all(c.action in c.legal for c in cases)
    dedup = [r[0] for r in mem.conn.execute("SELECT dedup FROM cases")]
    assert None not in dedup and len(set(dedup)) == len(dedup)
    kinds = [r[0] for r in mem.conn.execute("SELECT kind FROM updates")]
    assert kinds.count("reflect") == 2 and "rules" in kinds
    assert 1 <= len(mem.rules()) <= 3
    assert mem.digest() == CaseMemory.open(files(store, "a").checkpoint(1), frozen=True).digest()
    assert len(CaseMemory.open(files(store, "a").checkpoint(0), frozen=True)) == 0


def test_a_resumed_run_equals_an_uninterrupted_one(store):
    """Run 'b' is 'a' again, interrupted twice: mid learning phase, and before its evaluation."""
    calls_before = responses(store)
    b = files(store, "b")
    stopped = Learner(
        experiment("b"), store, max_new_games=2, progress=False
    ).run()  # eval0 + 1 learning game
    assert stopped.status == "stopped" and not b.checkpoint(1).exists()
    idle = Learner(
        experiment("b"), store, max_new_games=0, progress=False
    ).run()  # no budget: replays nothing
    assert idle.status == "stopped" and not b.checkpoint(1).exists()
    again = Learner(experiment("b"), store, max_new_games=1, progress=False).run()  # replays 1, plays 1 more
    assert again.status == "stopped" and again.replayed == 1 and b.checkpoint(1).exists()
    frozen = sha(b.checkpoint(1))
    done = Learner(experiment("b"), store, progress=False).run()  # evaluation on the frozen checkpoint
    assert done.status == "finished" and done.played == 1
    assert sha(b.checkpoint(1)) == frozen  # evaluation left the memory byte-for-byte unchanged
    assert (
        CaseMemory.open(b.latest, frozen=True).digest()
        == CaseMemory.open(files(store, "a").latest, frozen=True).digest()
    )
    assert actions(store, "b") == actions(store, "a")
    assert responses(store) == calls_before  # every model call came back from the response cache


def test_learning_curves_are_plotted(store, tmp_path):
    paths = plot_learning(store, "a", tmp_path)
    assert sorted(p.suffix for p in paths) == [".png", ".png", ".svg", ".svg"]
    assert all(p.stat().st_size > 1000 for p in paths)


def test_the_trained_memory_plays_in_plylab_run(store, tmp_path):
    memory = files(store, "a").latest
    before = sha(memory)
    spec = f"{AGENT},memory={memory}"
    assert (
        main(
            [
                *run_args("tic_tac_toe", spec, "optimal", games=1, store=tmp_path / "play.sqlite"),
            ]
        )
        == 0
    )
    assert sha(memory) == before
    with sqlite3.connect(tmp_path / "play.sqlite") as conn:
        notes = [
            json.loads(n)
            for (n,) in conn.execute(
                "SELECT note FROM moves WHERE player=? AND note IS NOT NULL", (canonical_spec(spec),)
            )
        ]
    assert any(n.get("retrieved") for n in notes)


@pytest.mark.parametrize("variant", ["memento", "cbr"])
def test_the_original_and_the_baseline_complete(variant, tmp_path, capsys):
    agent = f"{variant}:{TINY}"
    assert learn_cli(tmp_path / "s.sqlite", agent, budget=[*BUDGET, "--learn-games", "1"]) == 0
    (exp,) = json.loads(report(tmp_path / "s.sqlite", capsys))["experiments"]
    assert exp["agent"] == canonical_spec(agent) and [c["checkpoint"] for c in exp["checkpoints"]] == [0, 1]
    assert all("draw_rate" in c and "optimality" in c and "tokens_per_move" in c for c in exp["checkpoints"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--player", "llm:model=local"], "must be a learning agent"),
        (["--player", f"reaper:model=local,memory={__file__}"], "must not set memory="),
        (["--player", AGENT, "--runs", "0"], "--runs must be at least 1"),
        (["--player", "reaper:k=-3"], "bad player spec"),
        (["--player", AGENT, "--game", "klingon_chess"], "unknown game 'klingon_chess'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path, capsys):
    base = {"--game": "tic_tac_toe", "--opponent": "optimal", "--store": str(tmp_path / "s.sqlite")}
    given = dict(zip(args[::2], args[1::2]))
    argv = ["learn"] + [x for k, v in {**base, **given}.items() for x in (k, v)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
