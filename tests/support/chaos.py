"""Chaos: SIGKILL `plylab run` at random moments, resume it each time, then audit the store.

The audit is what "nothing lost" means: every planned game exactly once; every stored game
complete and consistent with its moves (replayed through OpenSpiel: each stored state, legal
list and mover matches, and the final returns and outcome agree); no orphan rows; SQLite's
integrity and foreign-key checks pass. The test suite runs a short version of this
(tests/harness/test_chaos.py); the long one is:

    .venv/bin/python bench/chaos.py --backend local --workers 2 --kills 50
    .venv/bin/python bench/chaos.py --backend ray --cluster --kills 30     # a 2-node loopback cluster
    .venv/bin/python bench/chaos.py --backend ray --address HOST:PORT --kills 30
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

# A strong MCTS makes a game last ~20 ms, so a kill a moment after a save lands mid-run even on a fast
# machine (with a weak player a whole run fits between two kills).
GAME, PLAYER, OPPONENT = "tic_tac_toe", "mcts:sims=10000", "random"


@dataclass
class ChaosRun:
    """One chaos session: how each kill went, and what the audit found at the end."""

    kills: int = 0
    mid_run_kills: int = 0  # kills that landed after some games were saved and before the end
    saved_at_kill: list[int] = field(default_factory=list)
    strays: int = 0  # processes of a killed run still alive 3 s after the kill (then killed)
    final_code: int | None = None
    final_out: str = ""
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def run_command(
    store: Path, games: int, seed: int, backend: str, address: str | None, workers: int | None
) -> list[str]:
    cmd = [
        sys.executable,
        "-m",
        "plylab",
        "run",
        "--game",
        GAME,
        "--player",
        PLAYER,
        "--opponent",
        OPPONENT,
        "--games",
        str(games),
        "--seed",
        str(seed),
        "--store",
        str(store),
        "--backend",
        backend,
        "--quiet",
    ]
    if address:
        cmd += ["--address", address]
    if workers:
        cmd += ["--workers", str(workers)]
    return cmd


def saved_games(store: Path) -> int:
    """Games in the store, read-only (0 while it does not exist yet)."""
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def _group_alive(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group."""
    out = subprocess.run(["ps", "-eo", "pid=,pgid=,stat="], capture_output=True, text=True).stdout
    rows = (line.split() for line in out.splitlines() if line.strip())
    return [int(p) for p, g, st in rows if int(g) == pgid and not st.startswith("Z")]


def _strays(pgid: int, grace: float = 3.0) -> int:
    """How many processes of a killed run are still alive after `grace` seconds."""
    deadline = time.monotonic() + grace
    while (alive := _group_alive(pgid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return len(alive)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def chaos(
    store: Path,
    *,
    backend: str = "local",
    address: str | None = None,
    workers: int | None = None,
    kills: int = 5,
    games: int = 300,
    seed: int = 7,
    delay: tuple[float, float] = (0.5, 3.0),
    rng_seed: int = 0,
    timeout: float = 600.0,
) -> ChaosRun:
    """Kill a run `kills` times, then let it finish and audit the store.

    Two rounds in three kill a moment (0-0.25 s) after the round's first saved game, so kills land
    mid-run, sometimes inside the next save; every third kills at a random moment within `delay`
    seconds after start (start-up, opening the store) or just after its first save if sooner."""
    rng = random.Random(rng_seed)
    cmd = run_command(store, games, seed, backend, address, workers)
    report = ChaosRun()
    start = time.monotonic()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    for i in range(kills):
        before = saved_games(store)
        proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, env=env
        )
        # Every third round kills at a random moment (start-up, opening the store, mid-run); the others
        # a moment after the round's first saved game. Either way no round plays more than a few games.
        deadline = time.monotonic() + (rng.uniform(*delay) if i % 3 == 2 else timeout)
        while saved_games(store) == before and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if time.monotonic() < deadline:
            time.sleep(min(rng.uniform(0.0, 0.25), max(0.0, deadline - time.monotonic())))
        if proc.poll() is not None:  # it finished before the kill: nothing left to test
            break
        os.kill(proc.pid, signal.SIGKILL)  # the driver only: its children must not outlive it
        proc.wait()
        report.strays += _strays(proc.pid)
        _kill_group(proc.pid)
        report.kills += 1
        now = saved_games(store)
        report.saved_at_kill.append(now)
        if 0 < now < games:
            report.mid_run_kills += 1
    final = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    report.final_code = final.returncode
    report.final_out = (final.stdout + final.stderr).strip()
    report.problems = audit(store, games=games, seed=seed)
    report.seconds = time.monotonic() - start
    return report


# -- the audit -----------------------------------------------------------------------------------


def audit(
    store: Path,
    *,
    games: int,
    seed: int,
    complete: bool = True,
    game: str = GAME,
    player: str = PLAYER,
    opponent: str = OPPONENT,
) -> list[str]:
    """Everything wrong with the store of the plan (game, player, opponent, games, seed); [] if sound.

    `complete=False` audits a run that was stopped on purpose: missing games are then expected."""
    from plylab.games import get_game
    from plylab.harness.plan import single_plan
    from plylab.harness.session import outcome_for

    problems: list[str] = []
    conn = sqlite3.connect(store)
    conn.row_factory = sqlite3.Row
    try:
        if (ok := conn.execute("PRAGMA integrity_check").fetchone()[0]) != "ok":
            problems.append(f"integrity_check: {ok}")
        if bad := conn.execute("PRAGMA foreign_key_check").fetchall():
            problems.append(f"foreign_key_check: {len(bad)} rows")
        orphans = conn.execute(
            "SELECT COUNT(*) FROM moves WHERE game_id NOT IN (SELECT id FROM games)"
        ).fetchone()[0]
        orphans += conn.execute(
            "SELECT COUNT(*) FROM games WHERE run_id NOT IN (SELECT id FROM runs)"
        ).fetchone()[0]
        if orphans:
            problems.append(f"{orphans} orphan rows")
        plan = single_plan(game, "standard", player, opponent, games, seed, None)
        runs = conn.execute("SELECT * FROM runs WHERE name = ?", (plan.name,)).fetchall()
        if len(runs) != 1:
            return problems + [f"{len(runs)} runs named {plan.name}"]
        if complete and runs[0]["status"] != "finished":
            problems.append(f"run status {runs[0]['status']}")
        rows = conn.execute("SELECT * FROM games WHERE run_id = ?", (runs[0]["id"],)).fetchall()
        jobs = {j.key: j for j in plan.jobs()}
        counts = Counter(r["job_key"] for r in rows)
        if complete and (missing := set(jobs) - set(counts)):
            problems.append(f"{len(missing)} planned games missing")
        if extra := set(counts) - set(jobs):
            problems.append(f"{len(extra)} games not in the plan")
        if twice := [k for k, n in counts.items() if n > 1]:
            problems.append(f"{len(twice)} games stored more than once")
        engine = get_game(game)
        for g in rows:
            job = jobs.get(g["job_key"])
            if job is None:
                continue
            if (g["idx"], g["player_seat"], g["seed"]) != (job.idx, job.player_seat, job.seed):
                problems.append(f"game {g['job_key']}: idx/seat/seed differ from its job")
            moves = conn.execute("SELECT * FROM moves WHERE game_id = ? ORDER BY ply", (g["id"],)).fetchall()
            problems += [f"game {g['job_key']}: {p}" for p in _replay(engine, g, moves, outcome_for)]
    finally:
        conn.close()
    return problems


def _replay(engine, g: sqlite3.Row, moves: list[sqlite3.Row], outcome_for) -> list[str]:  # noqa: ANN001
    """Replay a stored game through OpenSpiel and list every disagreement with what was stored."""
    if [m["ply"] for m in moves] != list(range(len(moves))) or g["num_moves"] != len(moves):
        return [f"moves {len(moves)} (plies {[m['ply'] for m in moves]}) vs num_moves {g['num_moves']}"]
    state = engine.new_state()
    for m in moves:
        if state.is_terminal():
            return [f"ply {m['ply']}: a move after the end"]
        if m["state"] != state.serialize() or m["seat"] != state.current_player():
            return [f"ply {m['ply']}: stored state or mover differs from the replay"]
        if json.loads(m["legal"]) != state.legal_actions():
            return [f"ply {m['ply']}: stored legal moves differ"]
        if m["action"] is None:
            break
        if m["action"] not in state.legal_actions():
            return [f"ply {m['ply']}: illegal action {m['action']}"]
        state.apply_action(m["action"])
    returns = json.loads(g["returns"])
    if g["forfeit_by"] is None:
        if not state.is_terminal():
            return ["the stored game does not reach the end"]
        if [float(r) for r in state.returns()] != returns:
            return [f"returns {returns} vs replay {state.returns()}"]
    if outcome_for(returns, g["player_seat"], g["forfeit_by"]) != g["outcome"]:
        return [f"outcome {g['outcome']} does not follow from returns {returns}"]
    return []


def interrupt_run(
    store: Path,
    backend: str = "local",
    address: str | None = None,
    extra: tuple[str, ...] = (),
    games: int = 2000,
    timeout: float = 180,
) -> tuple[int, str, str]:
    """Start `plylab run`, wait until a game is saved, Ctrl-C it (SIGINT to its process group, as a
    terminal does) and return (exit code, stdout, stderr)."""
    cmd = run_command(store, games, 1, backend, address, None) + list(extra)
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + timeout
    while saved_games(store) == 0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, f"the run ended before it could be interrupted: {proc.communicate()}"
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def assert_clean_interrupt(store: Path, code: int, out: str, err: str, games: int = 2000) -> None:
    assert code == 130, (code, out, err)
    lines = out.strip().splitlines()
    assert len(lines) == 1 and " interrupted: " in lines[0] and "re-run the same command" in lines[0], out
    assert "Traceback" not in err and "Error" not in err, err
    saved = int(lines[0].split(" interrupted: ")[1].split("/")[0])
    assert saved == saved_games(store) > 0
    problems = audit(store, games=games, seed=1, complete=False)
    assert problems == []
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT status FROM runs").fetchone()[0] == "interrupted"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="local", choices=["local", "ray"])
    parser.add_argument("--address", help="join this Ray cluster")
    parser.add_argument(
        "--cluster", action="store_true", help="start a 2-node loopback Ray cluster for the run"
    )
    parser.add_argument("--workers", type=int)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--games", type=int, help="games in the plan (default: 60 per kill)")
    parser.add_argument("--min-delay", type=float, default=0.5)
    parser.add_argument("--max-delay", type=float, default=4.0)
    parser.add_argument("--seed", type=int, default=0, help="seed of the kill schedule")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chaos-") as tmp:
        cluster = None
        address = args.address
        if args.cluster:
            from tests.support.cluster import LoopbackCluster

            cluster = LoopbackCluster(Path(tmp) / "rc")
            address = cluster.start()
        try:
            r = chaos(
                Path(tmp) / "chaos.sqlite",
                backend=args.backend,
                address=address,
                workers=args.workers,
                kills=args.kills,
                games=args.games or 60 * args.kills,
                delay=(args.min_delay, args.max_delay),
                rng_seed=args.seed,
            )
        finally:
            if cluster is not None:
                cluster.stop()
    print(f"kills: {r.kills} ({r.mid_run_kills} mid-run), stray processes after kills: {r.strays}")
    print(f"games saved at each kill: {r.saved_at_kill}")
    print(f"final run: exit {r.final_code}: {r.final_out.splitlines()[-1] if r.final_out else ''}")
    print(f"audit: {'OK' if not r.problems else r.problems[:20]}  ({r.seconds:.0f}s)")
    sys.exit(0 if not r.problems and r.final_code == 0 else 1)


if __name__ == "__main__":
    main()
