"""Clue deduction suites on real components: snapshots of games the classic Clue players play, their
truth the live SAT oracle's, what a snapshot's prompt shows (only the seat's observations), the
paper's scoring of deductions, and the CLI end to end."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from plylab.cli import main
from plylab.clue.matrix import PossibilityMatrix
from plylab.clue.oracle import ClueOracle
from plylab.clue.prompts import messages
from plylab.suites.deduction import build_clue_suite as build_suite
from plylab.suites.deduction import clue_game, facts, judge
from plylab.suites.file import Position, read_suite
from plylab.suites.study import SuiteStudy


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_a_clue_suite_built_twice_from_one_seed_is_the_same_bytes_and_hash(tmp_path: Path) -> None:
    a = build_suite("c", "clue", 8, seed=1)
    b = build_suite("c", "clue", 8, seed=1)
    assert a.text() == b.text() and a.hash == b.hash
    assert build_suite("c", "clue", 8, seed=2).hash != a.hash
    assert build_suite("c", "clue", 8, seed=1, sampler="clue-random").hash != a.hash  # the sampler says
    a.write(tmp_path / "c.jsonl")
    suite, _ = read_suite(str(tmp_path / "c.jsonl"))
    assert suite.hash == a.hash and suite.positions == a.positions


@pytest.mark.slow
def test_every_stored_truth_is_what_the_live_sat_oracle_entails(tmp_path: Path) -> None:
    """Read back from the file, each snapshot's state rebuilt from its history: a fresh oracle on the
    mover's view entails exactly the stored facts (outside its hand), all true in the deal; the matrix
    count is what the matrix's rules find of them."""
    built = build_suite("c", "clue", 12, seed=3)
    built.write(tmp_path / "c.jsonl")
    suite, _ = read_suite(str(tmp_path / "c.jsonl"))
    game = clue_game(suite.game)
    for pos in suite.positions:
        state: Any = pos.state(game)
        assert state.pending is None and state.current_player() == pos.mover  # a suggester's turn
        view = state.view(pos.mover)
        oracle = ClueOracle.for_view(view)
        live = sorted((c, h) for c, h in oracle.known_holders().items() if c not in view.hand)
        oracle.close()
        assert list(facts(pos)) == live and live
        assert all(state.holder[c] == h for c, h in live)
        matrix = PossibilityMatrix.for_view(view).known_holders()
        assert pos.features["matrix"] == sum(1 for c, h in live if matrix.get(c) == h)
    assert len({p.history for p in suite.positions}) == len(suite.positions)


@pytest.mark.parametrize(
    ("more", "said"),
    [
        ({}, "needs its 'entailed' facts"),
        ({"entailed": [[1]]}, "'entailed' holds [card, holder] pairs"),
        ({"entailed": "3,6"}, "'entailed' must be a list"),
    ],
)
def test_a_forged_clue_snapshot_is_refused_by_its_kind_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], more: dict[str, Any], said: str
) -> None:
    """Hashes made right, the snapshot's facts missing or malformed: the deduction kind's check
    (chosen from the header's game) refuses it, naming the position."""
    suite = build_suite("c", "clue", 2, seed=1)
    forged = replace(suite, positions=(suite.positions[0], replace(suite.positions[1], more=more)))
    path = tmp_path / "c.jsonl"
    forged.write(path)
    code, _, err = _cli(capsys, "suite", "show", str(path))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "is not a valid suite: position 1 (line 3)" in err and said in err


def test_a_hand_edited_clue_truth_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.jsonl"
    build_suite("c", "clue", 3, seed=1).write(path)
    lines = path.read_text().splitlines()
    row = json.loads(lines[2])
    row["entailed"] = row["entailed"][1:] or [[0, 6]]
    lines[2] = json.dumps(row, sort_keys=True, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")
    code, _, err = _cli(capsys, "suite", "show", str(path))
    assert (
        code == 2 and "changed after it was built: position 1" in err and len(err.strip().splitlines()) == 1
    )


def test_deductions_are_judged_as_the_paper_judges_them() -> None:
    """Hand-made: a true entailed claim is correct; a true guess is correct and unsupported; a false
    claim is incorrect; an entailed fact not stated is missed; a claim on the own hand is ignored."""
    holder = [0, 1, 2, 6, 1, 2]  # card -> holder (6: the envelope)
    truth = ((1, 1), (3, 6), (5, 2))  # entailed
    verdict = judge({0: 0, 1: 1, 4: 1, 5: 3}, hand={0}, holder=holder, truth=truth)
    assert verdict["claims"] == 3  # card 0 is the seat's own
    assert (verdict["correct"], verdict["unsupported"], verdict["incorrect"]) == (2, 1, 1)
    assert (verdict["entailed"], verdict["missed"]) == (3, 2)  # (3, 6) unstated; (5, 2) stated wrongly


def _alternative_history(pos: Position, game: Any) -> tuple[int, ...] | None:
    """The snapshot's history in another deal its mover cannot rule out (another envelope when
    one is possible), with shows the mover does not see re-chosen from the cards held there."""
    real: Any = pos.state(game)
    oracle = ClueOracle.for_view(real.view(pos.mover))
    env = oracle.envelope
    deal = oracle.model(avoid=[[-oracle.var(c, env) for c in real.envelope]])
    if deal is None:
        deal = oracle.model(avoid=[[-oracle.var(c, real.holder[c]) for c in range(real.deck.size)]])
    oracle.close()
    if deal is None:
        return None
    n = real.n
    state: Any = game.new_state()
    state.deal(
        [next(c for c in cat if deal[c] == n) for cat in real.deck.categories],
        [[c for c in range(real.deck.size) if deal[c] == s] for s in range(n)],
    )
    for action in pos.history[real.deck.size :]:  # the deal is the first deck.size actions
        if state.pending is not None and pos.mover not in (state.pending[0], state.pending[2]):
            action = state.show_options()[-1]
        state.apply_action(action)
    return tuple(state.history())


@pytest.mark.slow
def test_no_clue_snapshot_prompt_shows_what_its_seat_cannot_know() -> None:
    """The suites' hidden-information test for Clue: each snapshot, rebuilt in another deal its seat
    cannot tell apart, gives the same view, information state and prompts (history and matrix)."""
    suite = build_suite("c", "clue", 10, seed=4)
    study = SuiteStudy(suite, ["clue-llm:model=local"])
    game = clue_game(suite.game)
    differing = envelopes = 0
    for job in study.jobs(set()):
        pos = job.position
        other = _alternative_history(pos, game)
        if other is None:  # the seat knows the whole deal: no other world to compare
            continue
        alt = replace(pos, history=other)
        a: Any = pos.state(game)
        b: Any = alt.state(game)
        differing += a.holder != b.holder
        envelopes += sorted(a.envelope) != sorted(b.envelope)
        va, vb = a.view(pos.mover), b.view(pos.mover)
        assert va == vb, f"snapshot {pos.index}: the view shows what its seat cannot know"
        assert a.information_state_string(pos.mover) == b.information_state_string(pos.mover)
        for matrix in (False, True):
            ma = PossibilityMatrix.for_view(va) if matrix else None
            mb = PossibilityMatrix.for_view(vb) if matrix else None
            for history in (None, True):
                assert messages(va, ma, history) == messages(vb, mb, history)
    assert differing >= 6 and envelopes > 0  # the deals compared really differ


@pytest.mark.slow
def test_clue_suite_build_show_run_report_end_to_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = _cli(
        capsys, "suite", "build", "clue-12", "--game", "clue", "--positions", "12", "--seed", "1"
    )
    assert code == 0 and (tmp_path / "suites" / "clue-12.jsonl").is_file()
    code, out, _ = _cli(capsys, "suite", "show", "clue-12")
    assert code == 0 and "sampler 'clue-matrix', seed 1" in out and "facts entailed per snapshot" in out
    players = ["clue-oracle", "clue-matrix", "clue-random"]
    argv = [
        "suite",
        "run",
        "clue-12",
        *(x for p in players for x in ("--player", p)),
        "--store",
        "s.sqlite",
        "-q",
    ]
    code, out, _ = _cli(capsys, *argv)
    assert code == 0 and "36/36" in out
    code, out, _ = _cli(capsys, *argv)  # again: nothing left to ask
    assert code == 0 and "0 played now, 36 already there" in out
    code, out, _ = _cli(capsys, "suite", "report", "--store", "s.sqlite", "--format", "json")
    data = json.loads(out)
    assert "players" not in data  # a Clue suite has no moves to rate
    rows = {r["player"]: r for r in data["deductions"]["deductions"]}
    suite, _ = read_suite("clue-12")
    entailed = sum(len(facts(p)) for p in suite.positions)
    beyond = sum(p.features["beyond_matrix"] for p in suite.positions)
    oracle, matrix, rand = rows["clue-oracle"], rows["clue-matrix"], rows["clue-random"]
    assert oracle["entailed"] == entailed and oracle["correct"] == entailed and oracle["missed"] == 0
    assert oracle["incorrect"] == oracle["unsupported"] == 0 and oracle["perfect"]["rate"] == 1.0
    assert matrix["incorrect"] == 0 and matrix["missed"] == beyond  # sound, not complete
    assert matrix["missed_rate"]["rate"] == pytest.approx(beyond / entailed)
    assert rand["claims"] == 0 and rand["missed_rate"]["rate"] == 1.0 and rand["correct_rate"]["rate"] is None
    low, high = matrix["missed_rate"]["low"], matrix["missed_rate"]["high"]
    assert low <= matrix["missed_rate"]["rate"] <= high
    (pair,) = [
        p for p in data["pairs"]["pairs"] if (p["first"], p["second"]) == ("clue-oracle", "clue-random")
    ]
    assert pair["rate"]["difference"] == 1.0
    for fmt in ("table", "markdown", "csv", "latex", "html"):
        code, out, _ = _cli(capsys, "suite", "report", "--store", "s.sqlite", "--format", fmt)
        assert code == 0 and "clue-oracle" in out and "missed rate" in out
    assert _cli(capsys, "report", "--store", "s.sqlite", "--html", "site")[0] == 0
    assert "suite-deductions" in (tmp_path / "site" / "index.html").read_text()
    (page,) = (tmp_path / "site" / "suites").glob("*.html")
    html = page.read_text()
    assert html.count('class="card"') == 12 and html.count("Entailed: ") == 12
    assert html.count("clue-oracle: <b>") == 12 and "missed 0" in html


@pytest.mark.slow
def test_a_clue_suite_from_a_stored_run_holds_that_runs_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--from RUN`: snapshots are suggester's turns of the stored Clue games (their histories are
    prefixes of a stored game's), graded by the live oracle as a simulated suite is."""
    monkeypatch.chdir(tmp_path)
    seats = ["clue-matrix", "clue-random", "clue-random", "clue-oracle"]
    code, _, err = _cli(capsys, "clue", "run", *(x for p in seats for x in ("--player", p)), "--games", "2",
                        "--seed", "5", "--store", "s.sqlite", "-q")  # fmt: skip
    assert code == 0, err
    with sqlite3.connect("s.sqlite") as conn:
        (run,) = [str(r[0]) for r in conn.execute("SELECT name FROM runs WHERE kind='clue'")]
        finals = [str(r[0]) for r in conn.execute("SELECT state FROM moves")]
    code, _, err = _cli(capsys, "suite", "build", "c", "--game", "clue:players=4", "--from", run,
                        "--store", "s.sqlite", "--positions", "6", "--seed", "2")  # fmt: skip
    assert code == 0, err
    suite, _ = read_suite("c")
    assert suite.sampler == f"run:{run}" and len(suite.positions) == 6
    game = clue_game(suite.game)
    stored = {tuple(int(a) for a in text.split()) for text in finals}
    for pos in suite.positions:
        assert pos.history in stored  # a decision of a stored game, as it was stored
        state: Any = pos.state(game)
        assert state.pending is None and state.current_player() == pos.mover
        oracle = ClueOracle.for_view(state.view(pos.mover))
        hand = set(state.hands[pos.mover])
        assert list(facts(pos)) == sorted((c, h) for c, h in oracle.known_holders().items() if c not in hand)
        oracle.close()


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["suite", "build", "c", "--game", "clue", "--sample", "random"], "not clue games"),
        (["suite", "build", "c", "--game", "clue", "--sample", "clue-llm:model=local"], "calls a model"),
        (["suite", "build", "c", "--game", "clue", "--from", "r"], "no store at"),
        (
            ["suite", "build", "c", "--game", "clue", "--from-puzzles", "p.csv"],
            "--from-puzzles is not for clue",
        ),
        (["suite", "build", "c", "--game", "clue", "--positions", "0"], "--positions must be at least 1"),
        (["suite", "run", "suites/c.jsonl", "--player", "random"], "clue"),
    ],
)
def test_clue_suite_bad_input_is_one_line_and_exit_2(
    argv: list[str],
    says: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    build_suite("c", "clue", 2, seed=1).write(tmp_path / "suites" / "c.jsonl")
    code, _, err = _cli(capsys, *argv)
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.model
def test_the_local_model_answers_clue_snapshots_from_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One call per snapshot with the Clue study's own prompt; its stated holdings judged."""
    monkeypatch.chdir(tmp_path)
    assert (
        _cli(capsys, "suite", "build", "clue-3", "--game", "clue", "--positions", "3", "--seed", "1")[0] == 0
    )
    code, out, _ = _cli(capsys, "suite", "run", "clue-3", "--player", "clue-llm:model=local", "-q")
    assert code == 0 and "3/3" in out
    code, out, _ = _cli(capsys, "suite", "report", "--format", "json")
    (row,) = json.loads(out)["deductions"]["deductions"]
    assert row["n"] == 3 and row["calls"] == 3 and row["input_tokens"] > 0
    assert row["correct"] + row["incorrect"] == row["claims"] and row["entailed"] > 0
