"""Suites on real components: the file (byte-identical builds, hashes, hand edits refused), its truth
against the live oracle, runs on the one driver (resumed after SIGKILL), the paired statistics
against scipy, hidden information in a suite's prompts, and the CLI end to end."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from scipy.stats import binomtest

from plylab.analysis.paired import binomial_two_sided, mcnemar, paired_bootstrap
from plylab.cli import main
from plylab.games import get_game
from plylab.players.llm import build_prompt
from plylab.players.worlds import TooManyWorlds, sample_world
from plylab.suites.build import build_suite
from plylab.suites.file import read_suite
from plylab.suites.study import SuiteStudy
from tests.support.engines import needs_stockfish

ROOT = Path(__file__).resolve().parents[2]


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- the file ---------------------------------------------------------------------------------------


def test_a_suite_built_twice_from_one_seed_is_the_same_bytes_and_hash(tmp_path: Path) -> None:
    a = build_suite("t", "tic_tac_toe", 40, seed=1)
    b = build_suite("t", "tic_tac_toe", 40, seed=1)
    assert a.text() == b.text() and a.hash == b.hash
    assert build_suite("t", "tic_tac_toe", 40, seed=2).hash != a.hash  # the hash says which positions
    a.write(tmp_path / "t.jsonl")
    suite, _ = read_suite(str(tmp_path / "t.jsonl"))
    assert suite.hash == a.hash and (tmp_path / "t.jsonl").read_text() == a.text()
    head = json.loads(a.text().splitlines()[0])
    assert head["hash"] == a.hash and head["truth"]["kind"] == "exact" and head["plylab_suite"] == 1


LEDUC = pytest.param("leduc_poker", marks=pytest.mark.slow)  # its equilibrium takes ~40 s to build cold


@pytest.mark.parametrize(
    ("game", "n"),
    [
        ("tic_tac_toe", 30),
        ("nim", 10),
        pytest.param("connect_four", 8, marks=pytest.mark.slow),
        ("kuhn_poker", 6),
        pytest.param("leduc_poker", 12, marks=pytest.mark.slow),
    ],
)
def test_every_stored_value_is_the_live_oracles(game: str, n: int) -> None:
    """Each legal move's stored value is what the game's grader says of that move now, and every
    position is informative (not every move equally good)."""
    suite = build_suite("s", game, n, seed=3)
    g = get_game(game)
    assert g.ground_truth is not None
    grader = g.ground_truth.grader(g)
    assert grader is not None
    for pos in suite.positions:
        state = g.replay(pos.history)
        assert state.current_player() == pos.mover
        assert sorted(m.action for m in pos.moves) == sorted(state.legal_actions())
        for m in pos.moves:
            live = grader.judge(state, m.action).grade
            assert live is not None and live.expected[m.action] == pytest.approx(m.value, abs=1e-12)
        grade = pos.grade()
        assert grade.informative
        assert pos.features["legal"] == len(pos.moves)
        assert pos.features["chance"] == pytest.approx(len(grade.best_actions) / len(pos.moves))


@pytest.mark.slow
@needs_stockfish
def test_a_chess_suite_is_graded_once_at_the_stated_limit() -> None:
    """Every legal move searched at the build's limit, which the file states; the values are what
    the engine says of each move now at that limit (one thread, cleared hash: reproducible)."""
    suite = build_suite("c", "chess", 2, seed=1, limit="nodes=3000")
    assert suite.truth["kind"] == "engine" and suite.truth["limit"] == "nodes=3000"
    assert all("nodes=3000" in s for s in suite.truth["sources"])
    g = get_game("chess")
    assert g.ground_truth is not None
    grader = g.ground_truth.grader(g, "nodes=3000")
    assert grader is not None
    pos = suite.positions[0]
    state = g.replay(pos.history)
    assert sorted(m.action for m in pos.moves) == sorted(state.legal_actions())
    assert pos.features["to_end"] is None and not pos.exact
    for m in pos.moves[:3]:
        live = grader.judge(state, m.action).grade
        assert live is not None and live.expected[m.action] == pytest.approx(m.value)


def test_distance_to_the_end_is_the_length_of_an_optimal_line() -> None:
    suite = build_suite("s", "tic_tac_toe", 20, seed=4)
    for pos in suite.positions:
        assert pos.features["to_end"] is not None
        assert 1 <= pos.features["to_end"] <= 9 - pos.ply


def test_a_hand_edited_suite_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.jsonl"
    build_suite("t", "tic_tac_toe", 10, seed=1).write(path)
    lines = path.read_text().splitlines()
    pos = json.loads(lines[4])
    pos["moves"][0]["value"] = 1.0 - pos["moves"][0]["value"]  # a truth changed by hand
    edited = tmp_path / "edited.jsonl"
    edited.write_text(
        "\n".join([*lines[:4], json.dumps(pos, sort_keys=True, separators=(",", ":")), *lines[5:]]) + "\n"
    )
    code, out, err = _cli(capsys, "suite", "show", str(edited))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "position 3 (line 5)" in err and "changed after it was built" in err
    head = json.loads(lines[0])
    head["seed"] = 7  # the header changed by hand
    edited.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    code, _, err = _cli(capsys, "suite", "show", str(edited))
    assert code == 2 and "header" in err and len(err.strip().splitlines()) == 1
    edited.write_text("\n".join(lines[:-1]) + "\n")  # a position removed
    code, _, err = _cli(capsys, "suite", "show", str(edited))
    assert code == 2 and "holds 9 positions, its header says 10" in err
    code, out, _ = _cli(capsys, "suite", "show", str(path))  # the file as built is read
    assert code == 0 and "10 positions of tic_tac_toe" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["suite", "build", "x", "--game", "nope"], "unknown game 'nope'"),
        (["suite", "build", "x", "--game", "breakthrough"], "has no ground truth"),
        pytest.param(
            ["suite", "build", "x", "--game", "kuhn_poker", "--positions", "50"],
            "only 7 informative positions",
            marks=pytest.mark.slow,  # solves Kuhn first
        ),
        (["suite", "build", "x", "--game", "tic_tac_toe", "--sample", "llm:model=local"], "calls a model"),
        (["suite", "build", "x", "--game", "tic_tac_toe", "--sample", "nobody"], "unknown player"),
        (["suite", "show", "nothing-here"], "unknown suite 'nothing-here'"),
        (["suite", "run", "nothing-here", "--player", "random"], "unknown suite 'nothing-here'"),
        (
            ["suite", "build", "x", "--game", "tic_tac_toe", "--positions", "0"],
            "--positions must be at least 1",
        ),
        (["suite", "report", "--store", "none.sqlite"], "no store at none.sqlite"),
        (["suite", "run", "suites/t.jsonl"], "needs at least one --player"),
        (["suite", "run", "suites/t.jsonl", "--player", "nobody"], "unknown player"),
        (["suite", "run", "suites/t.jsonl", "--player", "optimal:depth=3"], "depth"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str],
    says: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    build_suite("t", "tic_tac_toe", 3, seed=1).write(tmp_path / "suites" / "t.jsonl")
    code, out, err = _cli(capsys, *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and says in err, err


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json\n", "line 1 is not JSON"),
        ('{"x": 1}\n', "not a plylab suite file"),
        ("", "is empty"),
        ('{"plylab_suite": 2}\n', "format version 2"),
        ('{"plylab_suite": 1}\n{"index": 0}\n', "line 2 lacks 'moves'"),
    ],
)
def test_a_malformed_file_is_one_line(
    text: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    code, _, err = _cli(capsys, "suite", "show", str(path))
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1


# -- statistics -------------------------------------------------------------------------------------


def test_the_paired_rate_test_matches_scipy_on_a_hand_made_example() -> None:
    # 20 positions: both right on 6, only the first on 9, only the second on 2, both wrong on 3
    first = [True] * 6 + [True] * 9 + [False] * 2 + [False] * 3
    second = [True] * 6 + [False] * 9 + [True] * 2 + [False] * 3
    paired = mcnemar(first, second)
    assert paired.p == pytest.approx(binomtest(9, 11, 0.5).pvalue, rel=1e-12)
    assert paired.difference == pytest.approx((15 - 8) / 20)
    assert paired.low < paired.difference < paired.high and paired.n == 20
    for k, n in [(0, 0), (0, 7), (3, 10), (5, 10), (12, 40), (30, 31)]:
        expected = 1.0 if n == 0 else binomtest(k, n, 0.5).pvalue
        assert binomial_two_sided(k, n) == pytest.approx(expected, rel=1e-12)


def test_the_paired_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    rng = random.Random(5)
    first = [rng.random() for _ in range(50)]
    second = [x - 0.1 + rng.gauss(0, 0.05) for x in first]
    a = paired_bootstrap(first, second, seed=1)
    assert a == paired_bootstrap(first, second, seed=1)
    assert a.low < a.difference < a.high and a.low > 0 and a.p < 0.01
    same = paired_bootstrap(first, first, seed=1)
    assert same.difference == 0 and same.p == 1.0


# -- hidden information -----------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["kuhn_poker", LEDUC])
def test_no_suite_prompt_shows_what_its_mover_cannot_know(game: str) -> None:
    """Each position's turn, as a suite run puts it (rebuilt from the stored history), reads the same
    in another world its mover cannot tell apart (other cards dealt): view and every prompt."""
    suite = build_suite("s", game, 6, seed=2)
    study = SuiteStudy(suite, ["random"])
    rng = random.Random(0)
    differing = 0
    for job in study.jobs(set()):
        turn = job.turn()
        try:
            world = sample_world(turn.state, job.position.mover, rng, 20_000)
        except TooManyWorlds:
            continue
        other = replace(job, position=replace(job.position, history=tuple(world.history()))).turn()
        differing += world.history() != turn.state.history()
        labels = list(turn.formulation.legal_labels(turn.state))
        assert labels == list(other.formulation.legal_labels(other.state))
        mine = [turn.view, *(build_prompt(turn, labels, out, 300) for out in ("text", "json", "enum"))]
        theirs = [other.view, *(build_prompt(other, labels, out, 300) for out in ("text", "json", "enum"))]
        assert mine == theirs, f"{game} position {job.position.index} shows what its mover cannot know"
    assert differing > 0  # the worlds compared really differ


# -- runs -------------------------------------------------------------------------------------------


def _answers(store: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(store) as conn:
        return [(int(r[0]), str(r[1])) for r in conn.execute("SELECT position, player FROM suite_answers")]


@pytest.mark.slow
def test_a_suite_run_killed_then_resumed_has_one_answer_per_position_and_player(tmp_path: Path) -> None:
    suite = tmp_path / "t.jsonl"
    build_suite("t", "tic_tac_toe", 60, seed=1).write(suite)
    store = tmp_path / "s.sqlite"
    argv = [sys.executable, "-m", "plylab", "suite", "run", str(suite), "--player", "mcts:sims=3000",
            "--player", "random", "--store", str(store), "-q"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    deadline = time.time() + 120
    while time.time() < deadline and (not store.exists() or len(_safe_answers(store)) < 10):
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = len(_answers(store))
    assert 10 <= partial < 120, "the run was not killed mid-way"
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"{partial} already there" in done.stdout
    answers = _answers(store)
    assert len(answers) == len(set(answers)) == 120
    assert set(answers) == {(i, p) for i in range(60) for p in ("mcts:sims=3000", "random")}


def _safe_answers(store: Path) -> list[tuple[int, str]]:
    try:
        return _answers(store)
    except sqlite3.OperationalError:  # the table is not there yet, or the writer holds it
        return []


@pytest.mark.slow
def test_suite_build_run_report_end_to_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = _cli(
        capsys, "suite", "build", "ttt-8", "--game", "tic_tac_toe", "--positions", "8", "--seed", "1"
    )
    assert code == 0 and (tmp_path / "suites" / "ttt-8.jsonl").is_file()
    code, out, _ = _cli(capsys, "suite", "show", "ttt-8")
    assert code == 0 and "hash: sha256:" in out and "sampler 'random', seed 1" in out and "minimax" in out
    code, out, _ = _cli(
        capsys,
        "suite",
        "run",
        "ttt-8",
        "--player",
        "optimal",
        "--player",
        "random",
        "--store",
        "s.sqlite",
        "-q",
    )
    assert code == 0 and "16/16" in out
    code, out, _ = _cli(capsys, "suite", "report", "--store", "s.sqlite", "--format", "json")
    data = json.loads(out)
    rows = {r["player"]: r for r in data["players"]["players"]}
    assert rows["optimal"]["optimal"]["rate"] == 1.0 and rows["optimal"]["mean_loss"] == 0.0
    assert rows["random"]["above_chance"] < rows["optimal"]["above_chance"]
    (pair,) = data["pairs"]["pairs"]
    assert (pair["first"], pair["second"]) == ("optimal", "random") and pair["rate"]["difference"] > 0
    for fmt in ("table", "markdown", "csv", "latex", "html"):
        code, out, _ = _cli(capsys, "suite", "report", "--store", "s.sqlite", "--format", fmt)
        assert code == 0 and "optimal" in out and "random" in out


@pytest.mark.slow
def test_a_connect_four_suite_builds_runs_and_reports_from_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's commands for Connect Four, small, with classic players: graded by the exact
    solver, and the solver's own player optimal at every position."""
    monkeypatch.chdir(tmp_path)
    code, out, _ = _cli(
        capsys, "suite", "build", "c4-6", "--game", "connect_four", "--positions", "6", "--seed", "1"
    )
    assert code == 0 and (tmp_path / "suites" / "c4-6.jsonl").is_file()
    code, out, _ = _cli(capsys, "suite", "show", "c4-6")
    assert code == 0 and "6 positions of connect_four" in out and "connect four solver" in out
    argv = ["suite", "run", "c4-6", "--store", "s.sqlite", "-q"]
    players = ["optimal", "mcts:sims=20", "random"]
    for p in players:
        argv += ["--player", p]
    code, out, _ = _cli(capsys, *argv)
    assert code == 0 and "18/18" in out
    code, out, _ = _cli(capsys, "suite", "report", "--store", "s.sqlite", "--format", "json")
    data = json.loads(out)
    rows = {r["player"]: r for r in data["players"]["players"]}
    assert sorted(rows) == sorted(players) and all(r["n"] == 6 for r in rows.values())
    assert rows["optimal"]["optimal"]["rate"] == 1.0 and rows["optimal"]["mean_loss"] == 0.0
    assert rows["random"]["mean_loss"] > 0.0  # no position of a suite has every move equally good
    assert len(data["pairs"]["pairs"]) == 3
    code, out, _ = _cli(capsys, "suite", "report", "--store", "s.sqlite", "--format", "markdown")
    assert code == 0 and all(p in out for p in players) and "c4-6" in out


@pytest.mark.model
def test_the_local_model_answers_a_suite_from_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's commands, small: the local model and MCTS answer each position once, with tokens."""
    monkeypatch.chdir(tmp_path)
    assert (
        _cli(capsys, "suite", "build", "ttt-200", "--game", "tic_tac_toe", "--positions", "6", "--seed", "1")[
            0
        ]
        == 0
    )
    argv = [
        "suite",
        "run",
        "ttt-200",
        "--player",
        "llm:model=local,output=enum",
        "--player",
        "mcts:sims=100",
        "-q",
    ]
    code, out, _ = _cli(capsys, *argv)
    assert code == 0 and "12/12" in out
    code, out, _ = _cli(capsys, *argv)  # again: nothing left to ask
    assert code == 0 and "0 played now, 12 already there" in out
    code, out, _ = _cli(capsys, "suite", "report", "--format", "json")
    rows = {r["player"]: r for r in json.loads(out)["players"]["players"]}
    llm = rows["llm:model=local,output=enum"]
    assert llm["n"] == 6 and llm["calls"] == 6 and llm["input_tokens"] > 0 and llm["failures"] == 0


@pytest.mark.slow
def test_until_width_stops_at_a_reproducible_prefix_of_whole_positions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        _cli(capsys, "suite", "build", "t", "--game", "tic_tac_toe", "--positions", "80", "--seed", "1")[0]
        == 0
    )
    run = ["suite", "run", "t", "--player", "optimal", "--player", "random", "-q", "--until", "width=0.3"]
    code, out, _ = _cli(capsys, *run, "--store", "a.sqlite")
    assert code == 0 and "stopped (--until width=0.3" in out
    first = set(_answers(tmp_path / "a.sqlite"))
    k = len(first) // 2
    assert 2 <= k < 80 and first == {
        (i, p) for i in range(k) for p in ("optimal", "random")
    }  # whole positions, a prefix
    assert _cli(capsys, *run, "--store", "b.sqlite")[0] == 0
    assert set(_answers(tmp_path / "b.sqlite")) == first  # the same command stops at the same position
    code, out, _ = _cli(capsys, *run, "--store", "a.sqlite")
    assert code == 0 and f"0 played now, {2 * k} already there" in out
    code, out, _ = _cli(capsys, *run[:-2], "--store", "a.sqlite")  # without --until: the rest of the suite
    assert code == 0 and "160/160" in out
    code, _, err = _cli(capsys, *run[:-1], "width=2", "--store", "a.sqlite")
    assert code == 2 and "between 0 and 1" in err


def test_a_suite_from_a_stored_run_holds_that_runs_positions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["run", "--game", "kuhn_poker", "--player", "random", "--opponent", "random", "--games", "20"]
    assert _cli(capsys, *argv, "--store", "g.sqlite", "--run", "k", "-q")[0] == 0
    code, out, _ = _cli(
        capsys,
        "suite",
        "build",
        "fk",
        "--game",
        "kuhn_poker",
        "--positions",
        "5",
        "--from",
        "k",
        "--store",
        "g.sqlite",
    )
    assert code == 0
    suite, _ = read_suite("fk")
    assert suite.sampler == "run:k"
    with sqlite3.connect(tmp_path / "g.sqlite") as conn:
        stored = {r[0] for r in conn.execute("SELECT state FROM moves")}
    g = get_game("kuhn_poker")
    for pos in suite.positions:
        assert g.replay(pos.history).serialize() in stored  # a decision the run's games really met
    code, _, err = _cli(capsys, "suite", "build", "x", "--game", "nim", "--from", "k", "--store", "g.sqlite")
    assert code == 2 and "holds no games of 'nim'" in err
    code, _, err = _cli(
        capsys, "suite", "build", "x", "--game", "nim", "--from", "nope", "--store", "g.sqlite"
    )
    assert code == 2 and "no run 'nope'" in err


PUZZLES = """PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags
t0001,r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3,g8f6 h5f7,600,80,95,1000,mate mateIn1 opening short,https://lichess.org/x,Italian_Game
t0002,6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1,g8h8 d1d8,700,80,95,1000,backRankMate mate mateIn1 short,https://lichess.org/y,
"""


@pytest.mark.slow
@needs_stockfish
def test_lichess_puzzles_import_with_the_first_move_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hand-written puzzles in lichess's format: the opponent's move applied, the solver to move,
    and the engine's best move is lichess's answer (both are mates in one)."""
    from plylab.oracles.uci import mapping

    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.csv").write_text(PUZZLES)
    argv = ["suite", "build", "pz", "--game", "chess", "--from-puzzles", "p.csv", "--positions", "2"]
    code, _, err = _cli(capsys, *argv, "--limit", "nodes=5000")
    assert code == 0, err
    suite, _ = read_suite("pz")
    assert suite.sampler == "puzzles:p.csv" and suite.truth["limit"] == "nodes=5000"
    g = get_game("chess")
    for pos, (pid, side) in zip(suite.positions, [("t0001", 1), ("t0002", 1)], strict=True):
        state = pos.state(g)
        assert (
            pos.features["puzzle"] == pid
            and pos.mover == side == state.current_player()
            and len(pos.history) == 1
        )
        best = pos.grade().best_actions
        assert [mapping("chess", state).uci(a) for a in best] == [pos.features["lichess_answer"]]
    job = next(SuiteStudy(suite, ["random"]).jobs())
    assert job.turn().state.history() == suite.positions[0].state(g).history()  # a run asks the same position
    (tmp_path / "bad.csv").write_text(PUZZLES.replace("g8f6 h5f7", "g8g6 h5f7"))
    code, _, err = _cli(capsys, *argv[:6], "bad.csv")
    assert code == 2 and "'g8g6' is not a legal move" in err and "t0001" in err
    code, _, err = _cli(capsys, "suite", "build", "x", "--game", "tic_tac_toe", "--from-puzzles", "p.csv")
    assert code == 2 and "give --game chess" in err


def test_margin_keeps_only_positions_with_one_best_move_that_far_ahead() -> None:
    wide = build_suite("m", "tic_tac_toe", 30, seed=5)
    strict = build_suite("m", "tic_tac_toe", 30, seed=5, margin=0.5)
    assert strict.truth["margin"] == 0.5 and "margin" not in wide.truth
    assert any(p.features["optimal"] > 1 or p.features["margin"] < 0.5 for p in wide.positions)
    for p in strict.positions:
        assert p.features["optimal"] == 1 and p.features["margin"] >= 0.5


@pytest.mark.ray
def test_a_suite_runs_on_ray_with_the_same_answers(tmp_path: Path) -> None:
    """The jobs travel to Ray workers (picklable) and come back to the one store writer: the same
    answers as a local run of the same suite."""
    suite = tmp_path / "t.jsonl"
    build_suite("t", "tic_tac_toe", 10, seed=1).write(suite)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    runs = {}
    for backend in ("local", "ray"):
        store = tmp_path / f"{backend}.sqlite"
        argv = [sys.executable, "-m", "plylab", "suite", "run", str(suite), "--player", "mcts:sims=100",
                "--player", "random", "--store", str(store), "--backend", backend, "-q"]  # fmt: skip
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        with sqlite3.connect(store) as conn:
            runs[backend] = conn.execute(
                "SELECT position, player, action FROM suite_answers ORDER BY 1, 2"
            ).fetchall()
    assert len(runs["local"]) == 20 and runs["ray"] == runs["local"]


@pytest.mark.slow
def test_the_site_draws_each_suite_position_with_every_players_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        _cli(capsys, "suite", "build", "t", "--game", "tic_tac_toe", "--positions", "5", "--seed", "1")[0]
        == 0
    )
    run = ["suite", "run", "t", "--player", "optimal", "--player", "random", "--store", "s.sqlite", "-q"]
    assert _cli(capsys, *run)[0] == 0
    assert _cli(capsys, "report", "--store", "s.sqlite", "--html", "site")[0] == 0
    index = (tmp_path / "site" / "index.html").read_text()
    assert 'id="suites"' in index and "suite-players" in index and "suite-pairs" in index
    (page,) = (tmp_path / "site" / "suites").glob("*.html")
    html = page.read_text()
    assert html.count('class="card"') == 5 and html.count("<svg") == 5
    assert html.count("optimal: <b>") == 5 and html.count("random: <b>") == 5
