"""Hidden-information games end to end: `plylab run` with mcts, random and the local model, killed
with SIGKILL and resumed to exactly the planned games, and `plylab report` with W/D/L/F and the mean
payoff per game."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from plylab.harness.plan import single_plan
from plylab.harness.session import outcome_for, play_game
from tests.support.chaos import saved_games
from tests.support.first_save import killed_after_first_save as _kill_after_first_save

GAMES = ("kuhn_poker", "leduc_poker", "liars_dice", "phantom_ttt")


def _cmd(store: Path, game: str, player: str, opponent: str, games: int) -> list[str]:
    return [
        sys.executable, "-m", "plylab", "run", "--game", game, "--player", player, "--opponent", opponent,
        "--games", str(games), "--seed", "5", "--store", str(store), "--quiet",
    ]  # fmt: skip


def _stored(store: Path) -> dict[str, tuple[list[float], list[int | None], int, str]]:
    """job key -> (returns, actions, player seat, outcome) of every stored game."""
    conn = sqlite3.connect(store)
    try:
        out = {}
        for gid, key, returns, seat, outcome in conn.execute(
            "SELECT id, job_key, returns, player_seat, outcome FROM games"
        ):
            actions = [
                a for (a,) in conn.execute("SELECT action FROM moves WHERE game_id=? ORDER BY ply", (gid,))
            ]
            assert key not in out, f"{key} stored twice"
            out[key] = (json.loads(returns), actions, seat, outcome)
        return out
    finally:
        conn.close()


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(
    ("player", "opponent"), [("mcts:search=determinized", "random"), ("random", "mcts"), ("mcts", "random")]
)
def test_kill_and_resume_plays_exactly_the_planned_games(
    tmp_path: Path, game: str, player: str, opponent: str
) -> None:
    store = tmp_path / "s.sqlite"
    games = 30
    cmd = _cmd(store, game, player, opponent, games)
    assert _kill_after_first_save(cmd, store), "the run finished before it could be killed"
    killed_at = saved_games(store)
    assert 0 < killed_at < games
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    stored = _stored(store)
    plan = single_plan(game, "standard", player, opponent, games, 5, None)
    assert set(stored) == {j.key for j in plan.jobs()}  # each planned game once, no other
    for job in plan.jobs():
        returns, actions, seat, outcome = stored[job.key]
        assert seat == job.player_seat and outcome == outcome_for(returns, seat, None)
        if job.idx % 5 == 0:  # and each is the game its job plays
            rec = asyncio.run(play_game(job))
            assert (returns, actions) == (rec.returns, [m.action for m in rec.moves])


@pytest.mark.slow
def test_report_shows_outcomes_and_mean_payoff(tmp_path: Path, cli) -> None:
    store = tmp_path / "s.sqlite"
    for game in ("kuhn_poker", "tic_tac_toe"):
        r = cli("run", "--game", game, "--player", "mcts", "--opponent", "random", "--games", "6",
                "--store", str(store), "--quiet")  # fmt: skip
        assert r.code == 0, r.out + r.err
    r = cli("report", "--store", str(store), "--format", "json")
    rows = {row["game"]: row for row in json.loads(r.out)["matchups"]}
    kuhn = rows["kuhn_poker"]
    stored = _stored(store)
    payoffs = [ret[seat] for key, (ret, _, seat, _) in stored.items() if key.startswith("kuhn_poker")]
    assert kuhn["payoff"]["mean"] == pytest.approx(sum(payoffs) / len(payoffs))
    assert kuhn["payoff"]["low"] <= kuhn["payoff"]["mean"] <= kuhn["payoff"]["high"]
    assert kuhn["wins"] + kuhn["draws"] + kuhn["losses"] + kuhn["failures"] == 6
    assert "payoff" not in rows["tic_tac_toe"]  # perfect-information rows stay as they were
    table = cli("report", "--store", str(store)).out
    assert "payoff/game" in table and "W" in table and "F" in table


@pytest.mark.model
@pytest.mark.timeout(900)
@pytest.mark.parametrize("game", GAMES)
def test_the_local_model_plays_and_resumes(tmp_path: Path, game: str) -> None:
    """The issue's command on each game, killed once and resumed: every planned game, each once."""
    store = tmp_path / "s.sqlite"
    cmd = _cmd(store, game, "llm:model=local,output=enum", "random", 20)
    _kill_after_first_save(cmd, store, timeout=600)
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    plan = single_plan(game, "standard", "llm:model=local,output=enum", "random", 20, 5, None)
    assert set(_stored(store)) == {j.key for j in plan.jobs()}
    conn = sqlite3.connect(store)
    prompts = [p for (p,) in conn.execute("SELECT prompt FROM moves WHERE prompt IS NOT NULL")]
    conn.close()
    assert prompts and all("Legal moves" in p for p in prompts)
