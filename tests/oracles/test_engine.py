"""Stockfish grades chess moves on the one scale: reproducibly, cached, and with its evaluations."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from plylab.errors import UserError
from plylab.games import get_game
from plylab.oracles.engine import EngineOracle, EvalCache, Limit, engine_path, parse_limit, win_chance
from plylab.oracles.graded import GradingOracle, grade_of
from tests.support.engines import needs_stockfish

# 1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 (a blunder) and 4. Qxf7# available
SCHOLAR = ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6"]
FAST = Limit(nodes=5000)


def _play(labels: list[str]):
    game = get_game("chess")
    state = game.new_state()
    states = []
    for label in labels:
        states.append(state.clone())
        state.apply_action(game.formulation("standard").parse_action(state, label))
    return states, state


def _label_action(state, label: str) -> int:
    return get_game("chess").formulation("standard").parse_action(state, label)


@pytest.fixture
def oracle(tmp_path: Path):
    path = engine_path("stockfish")
    assert path is not None
    o = EngineOracle("chess", FAST, path, EvalCache(tmp_path / "evals.sqlite"))
    yield o
    o.close()


@needs_stockfish
def test_a_blunder_loses_expected_score_and_the_engine_names_the_mate(oracle: EngineOracle) -> None:
    states, last = _play(SCHOLAR)
    assert isinstance(oracle, GradingOracle)
    blunder = states[-1]  # black to move: ...Nf6?? allows Qxf7#
    action = _label_action(blunder, "Nf6")
    g = grade_of(oracle, blunder, action)
    assert g.unit == "score" and not g.exact and g.source == "stockfish 15.1 nodes=5000"
    assert g.loss(action) > 0.4 and g.detail["played_eval"]["mate"] == -1  # mated next (mover's view)
    assert g.detail["cp_loss"] > 900 and g.detail["best"]["uci"] != "g8f6"
    assert g.detail["pv"][0] == g.detail["best"]["uci"]
    mate = grade_of(oracle, last, _label_action(last, "Qxf7#"))
    assert mate.detail["best"]["label"] == "Qxf7#" and mate.loss(_label_action(last, "Qxf7#")) == 0
    assert mate.expected[_label_action(last, "Qxf7#")] == 1.0  # the game ends: its exact result


@needs_stockfish
def test_the_engine_s_own_move_is_valued_by_the_search_of_the_position_after_it(oracle: EngineOracle) -> None:
    """Issue 38: the evaluation after an engine-best move was the position before's, reused."""
    import chess

    from plylab.analysis.chess import graded_ply
    from plylab.oracles.uci import board_of

    states, _ = _play(SCHOLAR[:2])
    state = states[-1].child(_label_action(states[-1], "e5"))  # 1. e4 e5, White to move
    before = oracle.evaluate(board_of("chess", state))
    best = _label_action(
        state, chess.Board(board_of("chess", state).fen()).san(chess.Move.from_uci(before.best))
    )
    g = oracle.grade(state, best)
    after = oracle.evaluate(board_of("chess", state.child(best))).flipped()  # its own search, mover's view
    assert g.detail["played_eval"] == {"cp": after.cp, "mate": after.mate}
    assert g.detail["eval"] == {"cp": before.cp, "mate": before.mate} and before.cp != after.cp
    assert graded_ply(2, 1, g).is_best and g.loss(best) == 0  # on the graded scale: the engine's move
    assert g.detail["cp_loss"] == max(0, before.cp - after.cp)  # lichess's: from the two evaluations


@needs_stockfish
def test_missing_a_mate_in_one_is_judged_by_lichess_s_mate_rule(oracle: EngineOracle) -> None:
    from plylab.analysis.chess import graded_ply

    _, last = _play(SCHOLAR)  # White mates with Qxf7#; Qe2 keeps a winning game but loses the mate
    g = oracle.grade(last, _label_action(last, "Qe2"))
    assert g.detail["eval"]["mate"] == 1  # the position before: its own search, not the mate's result
    ply = graded_ply(6, 1, g)
    assert not ply.is_best and ply.judgement == "blunder"  # Advice.scala: MateLost below +7.00


@needs_stockfish
def test_a_rerun_is_served_from_the_cache_without_the_engine(tmp_path: Path, oracle: EngineOracle) -> None:
    states, _ = _play(SCHOLAR)
    first = [oracle.grade(s, s.legal_actions()[0]).to_json() for s in states]
    oracle.pool.close()  # any search now would fail
    again = EngineOracle.__new__(EngineOracle)
    again.__dict__.update(oracle.__dict__)
    assert [again.grade(s, s.legal_actions()[0]).to_json() for s in states] == first


SCRIPT = """
import json, sys
from plylab.games import get_game
from plylab.oracles.engine import engine_oracle
game = get_game("chess"); state = game.new_state(); out = []
oracle = engine_oracle("chess", "")
for ply in range(8):
    legal = state.legal_actions()
    action = legal[(ply * 7) % len(legal)]
    out.append(oracle.grade(state, action).to_json())
    state.apply_action(action)
print(json.dumps(out))
"""


@needs_stockfish
@pytest.mark.slow  # two engine processes at the default limit: seconds, in `make test` only
def test_two_fresh_processes_give_the_same_scores_at_the_default_limit(tmp_path: Path) -> None:
    outs = []
    for k in (1, 2):
        env = {**os.environ, "PLYLAB_CACHE": str(tmp_path / f"cache{k}")}  # nothing cached: both search
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        outs.append(json.loads(done.stdout))
    assert outs[0] == outs[1]
    assert {g["source"] for g in outs[0]} == {f"stockfish 15.1 {Limit().text()}"}


def test_the_score_key_names_what_it_accepts() -> None:
    assert parse_limit("on") == Limit() and parse_limit("nodes=5000") == Limit(nodes=5000)
    assert parse_limit("depth=8") == Limit(nodes=None, depth=8)
    assert parse_limit("nodes=100,depth=3").text() == "nodes=100,depth=3"
    for bad in ("fast", "nodes=0", "nodes=x", "time=3"):
        with pytest.raises(UserError, match=r"use on, off, nodes=N \(1 to 100,000,000\), depth=D"):
            parse_limit(bad)


def test_lichess_curve() -> None:
    assert win_chance(0) == 0.5 and abs(win_chance(100) - 0.5915) < 1e-3  # lichess: +1.00 is 59.1%
    assert win_chance(-1000) < 0.03 and win_chance(1000) > 0.97


def test_a_score_limit_keeps_job_keys_and_old_plans_unchanged() -> None:
    import dataclasses

    from plylab.harness.plan import GameJob, Plan, single_plan

    plan = single_plan("chess", "standard", "random", "random", 2, 0, None)
    limited = Plan(
        plan.name, plan.seed, plan.games, [dataclasses.replace(plan.matchups[0], score_limit="nodes=5000")]
    )
    assert "score_limit" not in json.dumps(plan.to_dict())  # a plan stored before the key resumes as it was
    assert limited.to_dict()["matchups"][0]["score_limit"] == "nodes=5000"  # a new limit is a new plan
    keys = [GameJob(m, 1, 2, 0).key for m in (plan.matchups[0], limited.matchups[0])]
    assert keys[0] == keys[1] == "chess|standard|random|random|seed=0|1|seat=1"


def test_a_bad_score_value_is_one_line(cli, tmp_path) -> None:
    done = cli("run", "--game", "chess", "--player", "random", "--opponent", "random", "--games", "1",
               "--score", "fast", "--store", str(tmp_path / "s.sqlite"))  # fmt: skip
    assert done.code != 0 and "Traceback" not in done.err
    assert (
        "--score 'fast' is not accepted; use on, off, nodes=N (1 to 100,000,000), depth=D (1 to 99)"
        in done.err
    )


def test_an_engine_limit_on_a_game_without_an_engine_is_refused(cli, tmp_path) -> None:
    """`--score depth=5` only means something where an engine scores the moves: elsewhere it is one line
    and exit 2 before any run is made, not a limit silently stored and never read."""
    store = tmp_path / "s.sqlite"
    for game in ("tic_tac_toe", "kuhn_poker"):
        done = cli("run", "--game", game, "--player", "random", "--opponent", "random", "--games", "1",
                   "--score", "depth=5", "--store", str(store))  # fmt: skip
        assert done.code == 2 and "Traceback" not in done.err and len(done.err.strip().splitlines()) == 1
        assert (
            f"--score depth=5 sets an engine's search limit, and {game} is not scored by an engine"
            in done.err
        )
    assert not store.exists()
    chess = cli("run", "--game", "chess", "--player", "random", "--opponent", "random", "--games", "1",
                "--score", "depth=5", "--store", str(store), "--dry-run")  # fmt: skip
    assert chess.code == 0, chess.err
